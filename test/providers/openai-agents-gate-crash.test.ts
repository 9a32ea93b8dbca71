// A process killed (SIGKILL) while an approved call of `gateTools` runs under the real `run()` of
// `@openai/agents`, and the SDK's run state restored from its text in a new process: an idempotent
// tool starts again once with the same idempotency key, a non-idempotent one is reported
// `interrupted` to the model and never starts again, and no effect runs twice.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "@openai/agents";
import { Approval, stateAgreesWithTrail, verifyAudit } from "../../src/index.js";
import { nodeArguments } from "../helpers/node-child.js";
import { CALL_ID, RUN_ID, agentOf, crashApp, resumeSaved } from "./openai-agents-gate-crash-app.js";

const CHILD = fileURLToPath(new URL("./openai-agents-gate-crash-child.ts", import.meta.url));

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

const linesOf = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);

async function crashAndRestore(t: { after(fn: () => unknown): void }, idempotent: boolean) {
  const folder = mkdtempSync(join(tmpdir(), "leash-agents-gate-crash-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const database = join(folder, "leash.db");
  const effects = join(folder, "effects.txt");
  writeFileSync(effects, "");

  // The SDK's loop stops at the write's interruption; leash records the request, a person grants it.
  const { gate, store } = crashApp(database, effects, idempotent, false);
  const session = await gate.session(RUN_ID, { goal: "write the row" });
  const { agent } = agentOf(session, [[{ type: "call", callId: CALL_ID, name: "write_row", args: { row: "r1" } }]]);
  const asked = await run(agent, "Write the row.");
  assert.equal(asked.interruptions.length, 1, "the write raised the SDK's interruption");
  const waiting = (await store.load(RUN_ID))?.waiting ?? [];
  assert.equal(waiting.length, 1);
  await store.answer(RUN_ID, Approval.grant(waiting[0]!.digest, "noor"));
  const stateFile = join(folder, "run-state.json");
  writeFileSync(stateFile, asked.state.toString());
  await store.close();

  const kind = idempotent ? "idempotent" : "once";
  const killed = await runChild([database, effects, stateFile, kind, "block"], "started");
  assert.equal(killed.exit, "SIGKILL", killed.stderr);
  const firstStart = linesOf(effects);
  assert.equal(firstStart.length, 1, "the killed process started the write once");
  const again = await runChild([database, effects, stateFile, kind, "run"]);
  assert.equal(again.exit, 0, again.stderr);
  const told = JSON.parse(again.lines.find((line) => line.startsWith("told "))!.slice("told ".length)) as unknown;

  // The same saved state restored once more, in this process: the call has its answer, nothing starts.
  const reopened = crashApp(database, effects, idempotent, false);
  t.after(() => reopened.store.close());
  const toldLater = await resumeSaved(reopened.gate, readFileSync(stateFile, "utf8"));
  const state = await reopened.store.load(RUN_ID);
  const records = await reopened.store.read(RUN_ID);
  assert.deepEqual(verifyAudit(records), []);
  assert.deepEqual(stateAgreesWithTrail(state!, records).problems, []);
  const step = state?.steps.find((each) => each.decision.type === "act" && each.decision.callId === CALL_ID);
  return { told, toldLater, effects: linesOf(effects), outcome: step?.outcome, status: state?.status };
}

test("after a kill -9 mid-call, a run state restored in a new process starts an idempotent tool again, once, with the same key", async (t) => {
  const { told, toldLater, effects, outcome, status } = await crashAndRestore(t, true);
  assert.equal(effects.length, 2, "two starts: the killed one and one more");
  assert.equal(effects[0], effects[1], "the same idempotency key");
  assert.equal(told, "wrote r1");
  assert.equal(toldLater, "wrote r1", "the recorded result");
  assert.equal(outcome, "executed");
  assert.equal(status, "running", "the session goes on");
});

test("after a kill -9 mid-call, a run state restored in a new process reports a non-idempotent tool interrupted", async (t) => {
  const { told, toldLater, effects, outcome } = await crashAndRestore(t, false);
  assert.equal(effects.length, 1, "never started again");
  assert.match(String(told), /^interrupted: /);
  assert.match(String(toldLater), /^interrupted: /);
  assert.equal(outcome, "interrupted");
});
