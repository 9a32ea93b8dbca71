// Two real processes append to one JSONL trail at once: a line the other process is still writing is
// waited for, never taken for a torn one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readAudit, verifyAudit } from "../../src/index.js";
import { temporaryDirectory } from "./audit-test-helpers.js";
import { nodeArguments } from "../helpers/node-child.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fixture = fileURLToPath(new URL("../fixtures/share-sink.ts", import.meta.url));

function writer(path: string, runs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArguments(fixture), path, String(runs)], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let errors = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (out += chunk));
    child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`the writer failed: ${errors}`))));
  });
}

test("two processes appending big records to one JSONL sink get no false audit_torn; every run ends and verifies", async () => {
  const path = join(temporaryDirectory(), "shared.jsonl");
  const runs = 300;
  const outputs = await Promise.all([writer(path, runs), writer(path, runs)]);
  for (const output of outputs) assert.equal(output.split("\n")[0], `${runs} 0`, output);
  const records = readAudit(path);
  assert.deepEqual(verifyAudit(records), []);
  const ids = new Set(records.map((record) => record.run));
  assert.equal(ids.size, 2 * runs);
  const ended = new Set(records.filter((record) => record.event === "run_ended").map((record) => record.run));
  assert.equal(ended.size, 2 * runs);
});
