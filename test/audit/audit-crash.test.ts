// A real crash: a child process appending with fsync "always" is killed with SIGKILL; the trail it
// leaves must be a sound prefix plus at most one torn line, holding every append it acknowledged.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readAudit, readAuditPrefix, repairAudit } from "../../src/audit/read-audit.js";
import { verifyAudit } from "../../src/audit/verify-audit.js";
import { temporaryDirectory } from "./audit-test-helpers.js";
import { nodeArguments } from "../helpers/node-child.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fixture = fileURLToPath(new URL("../fixtures/append-until-killed.ts", import.meta.url));

/** Runs the fixture until it has acknowledged `count` appends, kills it, and returns what it acknowledged. */
function appendUntilKilled(path: string, count: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArguments(fixture), path], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const acknowledged: number[] = [];
    let pending = "";
    let errors = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) acknowledged.push(Number(line));
      if (acknowledged.length >= count) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (_code, signal) => {
      clearTimeout(timer);
      if (signal !== "SIGKILL" || acknowledged.length < count) reject(new Error(`the fixture ended early: ${errors}`));
      else resolve(acknowledged);
    });
  });
}

test(
  "SIGKILL during appends with fsync always leaves a sound prefix plus at most one torn line, holding every acknowledged append",
  { timeout: 30_000 },
  async () => {
    const directory = temporaryDirectory();
    for (const attempt of [1, 2]) {
      const path = join(directory, `crash-${attempt}.jsonl`);
      const acknowledged = await appendUntilKilled(path, 40 * attempt);
      const { records, tornTail } = readAuditPrefix(path);
      assert.deepEqual(verifyAudit(records), []);
      assert.deepEqual(
        records.map((record) => record.seq),
        Array.from({ length: records.length }, (_, seq) => seq),
      );
      assert.deepEqual(
        acknowledged,
        Array.from({ length: acknowledged.length }, (_, seq) => seq),
      );
      assert.ok(records.length >= acknowledged.length, `acknowledged ${acknowledged.length}, found ${records.length}`);
      if (tornTail !== null) {
        assert.equal(tornTail.line, records.length + 1);
        assert.deepEqual(repairAudit(path), tornTail);
      }
      assert.deepEqual(readAudit(path), records);
    }
  },
);
