// examples/ai-sdk-gate.ts runs as a user runs it (tsx, importing the built `leash`), without an API
// key: its scripted model asks for a refund, the person's answer is recorded in leash, and the SDK's
// approval response runs the refund once; the guide's page 15 shows what it prints.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

test("the AI SDK gate example asks, waits for leash, refunds once, and its trail verifies", async (t) => {
  const folder = mkdtempSync(join(tmpdir(), "leash-gate-example-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.OPENAI_API_KEY;
  const output = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", import.meta.resolve("tsx"), "examples/ai-sdk-gate.ts", join(folder, "leash.db")],
      { cwd: root, env, timeout: 120_000 },
      (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`))),
    );
  });
  const lines = output.trim().split("\n");
  assert.equal(lines[0], 'asks:     refund_order({"orderId":"1042","amount":39})');
  assert.match(lines[1] ?? "", /^approved: by noor in leash \(digest [0-9a-f]{12}…\)$/);
  assert.deepEqual(lines.slice(2), [
    "answer:   I have refunded the 39 you paid for order 1042.",
    'refunds:  ["1042: 39"]',
    "run:      completed; steps: lookup_order executed, refund_order executed",
    "trail:    verified",
  ]);
});
