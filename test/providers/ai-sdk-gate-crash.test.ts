// A process killed (SIGKILL) while an approved call of `gateTools` runs, and generateText sent the same
// messages again in a new process: an idempotent tool starts again once, a non-idempotent one is
// reported interrupted to the model and never starts again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ModelMessage } from "ai";
import { generateText, stepCountIs } from "ai";
import { Approval } from "../../src/index.js";
import { nodeArguments } from "../helpers/node-child.js";
import { CALL_ID, RUN_ID, crashApp, sendAgain } from "./ai-sdk-gate-crash-app.js";
import { gateTools } from "../../src/providers/ai-sdk/index.js";
import { scriptedModel } from "./ai-sdk-gate-script.js";

const CHILD = fileURLToPath(new URL("./ai-sdk-gate-crash-child.ts", import.meta.url));

/** Runs the child; resolves with its printed lines once it prints `until` (then kills it hard) or exits. */
function runChild(
  args: string[],
  until?: string,
): Promise<{ lines: string[]; exit: number | string | null; stderr: string }> {
  const child = spawn(process.execPath, [...nodeArguments(CHILD), ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let stderr = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (stderr += chunk));
  child.stdout.on("data", (chunk: string) => {
    out += chunk;
    if (until !== undefined && out.split("\n").includes(until)) child.kill("SIGKILL");
  });
  return new Promise((resolve) => {
    child.on("exit", (code, signal) =>
      resolve({ lines: out.split("\n").filter(Boolean), exit: signal ?? code, stderr }),
    );
  });
}

async function crashAndSendAgain(t: { after(fn: () => unknown): void }, idempotent: boolean) {
  const folder = mkdtempSync(join(tmpdir(), "leash-ai-sdk-gate-crash-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const database = join(folder, "leash.db");
  const starts = join(folder, "starts.txt");
  writeFileSync(starts, "");
  const { gate, store, tools } = crashApp(database, starts, idempotent, false);
  const session = await gate.session(RUN_ID);
  const prompt: ModelMessage[] = [{ role: "user", content: "Write the row." }];
  const { model } = scriptedModel({ calls: [[CALL_ID, "write_row", { row: "r1" }]] });
  const asked = await generateText({
    model,
    tools: gateTools(session, { tools }),
    messages: prompt,
    stopWhen: stepCountIs(3),
  });
  const request = asked.content.find((part) => part.type === "tool-approval-request");
  assert.ok(request !== undefined);
  const waiting = (await store.load(RUN_ID))?.waiting ?? [];
  assert.equal(waiting.length, 1);
  await store.answer(RUN_ID, Approval.grant(waiting[0]!.digest, "noor"));
  const messages: ModelMessage[] = [
    ...prompt,
    ...asked.response.messages,
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: true }] },
  ];
  const messagesFile = join(folder, "messages.json");
  writeFileSync(messagesFile, JSON.stringify(messages));
  await store.close();

  const kind = idempotent ? "idempotent" : "once";
  const killed = await runChild([database, starts, messagesFile, kind, "block"], "started");
  assert.equal(killed.exit, "SIGKILL", killed.stderr);
  assert.deepEqual(readFileSync(starts, "utf8").split("\n").filter(Boolean), [CALL_ID]);
  const again = await runChild([database, starts, messagesFile, kind, "run"]);
  assert.equal(again.exit, 0, again.stderr);
  const told = JSON.parse(again.lines.find((line) => line.startsWith("told "))!.slice("told ".length)) as unknown;

  // Once more, in this process: the call has its answer now, and nothing starts again.
  const reopened = crashApp(database, starts, idempotent, false);
  t.after(() => reopened.store.close());
  const toldLater = await sendAgain(reopened.gate, reopened.tools, messages);
  const state = await reopened.store.load(RUN_ID);
  return { told, toldLater, starts: readFileSync(starts, "utf8").split("\n").filter(Boolean), state };
}

test("after a kill -9 mid-call, the same messages in a new process start an idempotent tool again, once", async (t) => {
  const { told, toldLater, starts, state } = await crashAndSendAgain(t, true);
  assert.deepEqual(starts, [CALL_ID, CALL_ID], "two starts: the killed one and one more");
  assert.equal(told, "wrote r1");
  assert.equal(toldLater, "wrote r1", "the recorded result");
  const step = state?.steps.find((each) => each.decision.type === "act" && each.decision.callId === CALL_ID);
  assert.equal(step?.outcome, "executed");
});

test("after a kill -9 mid-call, the same messages in a new process report a non-idempotent tool interrupted", async (t) => {
  const { told, toldLater, starts, state } = await crashAndSendAgain(t, false);
  assert.deepEqual(starts, [CALL_ID], "never started again");
  assert.match(String(told), /^interrupted: /);
  assert.match(String(toldLater), /^interrupted: /);
  const step = state?.steps.find((each) => each.decision.type === "act" && each.decision.callId === CALL_ID);
  assert.equal(step?.outcome, "interrupted");
});
