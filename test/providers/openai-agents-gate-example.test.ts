// examples/openai-agents-gate.ts runs as a user runs it (tsx, importing the built `leash`), without an
// API key: its scripted model looks the order up and asks for a refund, the SDK stops with its
// interruption, the person's answer is recorded in leash, and the run state restored from its text
// runs the refund once; the guide's page 15 shows what it prints.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { verifyAudit } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

test("the OpenAI Agents gate example asks, waits for leash, refunds once, charges its model calls, and its trail verifies", async (t) => {
  const folder = mkdtempSync(join(tmpdir(), "leash-agents-gate-example-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const database = join(folder, "leash.db");
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.OPENAI_API_KEY;
  delete env.LEASH_OPENAI_MODEL;
  const output = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", import.meta.resolve("tsx"), "examples/openai-agents-gate.ts", database],
      { cwd: root, env, timeout: 120_000 },
      (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`))),
    );
  });
  const lines = output.trim().split("\n");
  assert.equal(lines[0], 'asks:     refund_order({"orderId":"1042","amount":39})');
  const digest = /^approved: by noor in leash \(digest ([0-9a-f]{12})…\)$/.exec(lines[1] ?? "")?.[1];
  assert.ok(digest !== undefined, lines[1]);
  assert.deepEqual(lines.slice(2), [
    "answer:   I have refunded the 39 you paid for order 1042.",
    'refunds:  ["1042: 39"]',
    "run:      completed; steps: lookup_order executed, refund_order executed",
    "charged:  450 tokens, 0.000270",
    "trail:    verified",
  ]);

  // What the example left in the store: the refund ran under the person's grant of the digest it printed.
  const store = new SqliteStore(database);
  t.after(() => store.close());
  const state = await store.load("support-chat-1042");
  const refund = state?.steps.find((step) => step.decision.type === "act" && step.decision.tool === "refund_order");
  assert.equal(refund?.decision.type === "act" ? refund.decision.callId : undefined, "call_refund");
  const records = await store.read("support-chat-1042");
  assert.deepEqual(verifyAudit(records), []);
  const answered = records.filter((record) => record.event === "approval_answered");
  assert.equal(answered.length, 1, "one answer, recorded once");
  const data = answered[0]!.data as { digest?: string; approver?: string };
  assert.ok(data.digest?.startsWith(digest), "the answer is to the digest the app printed");
  assert.equal(data.approver, "noor");
});
