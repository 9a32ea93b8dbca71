// What the evidence commands' tests share: a JSONL trail of several runs, its records, the keys made
// by the real bin, and the independent checker's reading of a checkpoint and a proof.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, Decision, JsonlAuditSink, recordDigest, tool } from "../../src/index.js";
import type { AuditRecord, AuditSink, RunStore } from "../../src/index.js";
import { specCheckpoint, specLeaf, specOpenNote, specVerifyInclusion } from "../evidence/spec-checker.js";
import { leash } from "./cli-helpers.js";

const echo = tool({
  name: "echo",
  parameters: { type: "object", properties: { text: { type: "string" } }, additionalProperties: false },
  execute: ({ text }) => text ?? "",
});

/**
 * Runs one run per entry of `steps`, the run of entry i taking steps[i] tool calls, with its records in
 * `sink` (a JSONL sink, or a store, which then keeps the runs' states too).
 */
export async function runInto(sink: AuditSink | (AuditSink & RunStore), steps: readonly number[]): Promise<string[]> {
  const runs: string[] = [];
  for (const count of steps) {
    const agent = new Agent({
      tools: [echo],
      planner: (state) =>
        state.steps.length < count
          ? Decision.act("echo", { text: `hi ${state.steps.length}` })
          : Decision.finish("done"),
      ...("save" in sink ? { store: sink } : { audit: sink }),
    });
    runs.push((await agent.run("say hi")).runId);
  }
  return runs;
}

/** Writes a JSONL trail of runs of the given lengths into `folder`; returns its path and run ids. */
export async function jsonlTrail(folder: string, steps: readonly number[]): Promise<{ path: string; runs: string[] }> {
  const path = join(folder, "audit.jsonl");
  const sink = new JsonlAuditSink(path);
  const runs = await runInto(sink, steps);
  await sink.close();
  return { path, runs };
}

/** The records of a JSONL trail, in file order. */
export function trailRecords(path: string): AuditRecord[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AuditRecord);
}

/** Writes records back as a JSONL trail. */
export function writeTrail(path: string, records: readonly AuditRecord[]): void {
  writeFileSync(path, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
}

/**
 * Rewrites a run's record at `seq` with `change`, and re-digests it and every later record of its run
 * so that the run's chain holds again: what an operator with write access can do.
 */
export function rebuildFrom(
  records: readonly AuditRecord[],
  run: string,
  seq: number,
  change: (record: AuditRecord) => AuditRecord,
): AuditRecord[] {
  let prev: string | null = null;
  return records.map((record) => {
    if (record.run !== run || record.seq < seq) return record;
    const base = record.seq === seq ? change(record) : record;
    const next = { ...base, prev: record.seq === seq ? base.prev : prev } as AuditRecord;
    next.digest = recordDigest(next);
    prev = next.digest;
    return next;
  });
}

/** Makes a key pair with the real bin in `cwd`: the signer key's file and the verifier key. */
export function makeKeys(
  cwd: string,
  name = "example.com/leash",
  out = "signer.key",
): { keyFile: string; verifierKey: string } {
  const result = leash(["keygen", "--name", name, "--out", out, "--json"], { cwd });
  assert.equal(result.status, 0, result.stderr);
  const { verifierKey, keyFile } = JSON.parse(result.stdout) as { verifierKey: string; keyFile: string };
  return { keyFile, verifierKey };
}

/** What `leash prove` prints. */
export interface ProveOutput {
  leafIndex: number;
  treeSize: number;
  leafHash: string;
  proof: string[];
}

/**
 * Checks a `leash prove` output with the independent checker: the checkpoint's signature by the
 * verifier key, then the proof from the record's leaf (SHA-256(0x00 ‖ digest)) to the signed root.
 */
export function specChecksProof(note: string, verifierKey: string, output: ProveOutput, digest: string): boolean {
  const text = specOpenNote(note, verifierKey);
  if (text === null) return false;
  const { size, root } = specCheckpoint(text);
  const leaf = specLeaf(Buffer.from(digest, "hex"));
  if (output.treeSize !== size || Buffer.from(output.leafHash, "base64").compare(leaf) !== 0) return false;
  const path = output.proof.map((hash) => Buffer.from(hash, "base64"));
  return specVerifyInclusion(output.leafIndex, size, leaf, path, root);
}
