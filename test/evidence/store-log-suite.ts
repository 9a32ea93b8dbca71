/**
 * The shared behaviour of a store as one Merkle log, run by the SQLite and the PostgreSQL store: the
 * spec checker verifies its checkpoints and proofs, its stored checkpoints keep whole notes, a
 * reopened store continues its log, and each tampering that passes verifyAudit fails verifyCheckpoint.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  keygen,
  makeRecord,
  signCheckpoint,
  verifyAudit,
  verifyCheckpoint,
  type AuditRecord,
  type AuditSink,
  type CheckpointProblem,
  type RunStore,
} from "../../src/index.js";
import { evidenceLogOf, signNote, type EvidenceStore } from "../../src/evidence/index.js";
import { interleavedTrail, timeOf } from "../audit/audit-test-helpers.js";
import {
  specCheckpoint,
  specLeaf,
  specOpenNote,
  specRoot,
  specVerifyConsistency,
  specVerifyInclusion,
} from "./spec-checker.js";
import { checkpointRefusalCases } from "./store-checkpoint-refusals.js";

/** A store that is a run store, an audit sink and a Merkle log. */
export type LogStore = RunStore & AuditSink & EvidenceStore;

/** How a suite reaches one kind of store. */
export interface LogStoreKind {
  name: string;
  /** A new, empty store (a file or a schema of its own). */
  open(): Promise<LogStore>;
  /** Closes a store and opens the same file or schema again. */
  reopen(store: LogStore): Promise<LogStore>;
  /** Runs SQL on the store's tables behind its back; `{audit}` and `{nodes}` name its tables. */
  tamper(store: LogStore, sql: string): Promise<void>;
  close(store: LogStore): Promise<void>;
}

export const origin = "example.com/leash";
export const { signerKey, verifierKey } = keygen(origin);

const leavesOf = (records: readonly AuditRecord[]): Buffer[] =>
  records.map((record) => specLeaf(Buffer.from(record.digest, "hex")));

/** Three interleaved runs of `perRun` records each, named after `prefix`. */
export function runsOf(prefix: string, perRun = 7): AuditRecord[] {
  return interleavedTrail([`${prefix}-a`, `${prefix}-b`, `${prefix}-c`], perRun);
}

const kinds = (problems: readonly CheckpointProblem[]): string[] => problems.map((entry) => entry.problem);

/** Defines the suite's tests for one kind of store. */
export function storeLogSuite(kind: LogStoreKind): void {
  checkpointRefusalCases(kind);
  const { name } = kind;

  test(`${name}: the spec checker verifies a store's checkpoints, inclusion proofs and consistency proofs`, async () => {
    const store = await kind.open();
    try {
      const first = runsOf("one");
      await store.append(first);
      const note = await signCheckpoint(store, { key: signerKey, origin });
      const text = specOpenNote(note, verifierKey);
      assert.ok(text !== null, "the checker verifies the signature");
      const checkpoint = specCheckpoint(text);
      assert.equal(checkpoint.size, first.length);
      assert.equal(checkpoint.root.toString("hex"), specRoot(leavesOf(first)).toString("hex"));
      const log = evidenceLogOf(store);
      for (const [index, leaf] of leavesOf(first).entries()) {
        const proof = await log.inclusionProof(index, first.length);
        assert.ok(specVerifyInclusion(index, first.length, leaf, proof, checkpoint.root), `leaf ${index}`);
      }
      const second = runsOf("two", 5);
      await store.append(second);
      const later = specCheckpoint(specOpenNote(await signCheckpoint(store, { key: signerKey, origin }), verifierKey)!);
      const all = [...first, ...second];
      assert.equal(later.size, all.length);
      assert.equal(later.root.toString("hex"), specRoot(leavesOf(all)).toString("hex"));
      const consistency = await log.consistencyProof(checkpoint.size, later.size);
      assert.ok(specVerifyConsistency(checkpoint.size, later.size, checkpoint.root, later.root, consistency));
      const last = second.at(-1)!;
      assert.equal(await log.leafIndexOf(last.run, last.seq), all.length - 1);
      assert.equal(await log.leafIndexOf("no-such-run", 0), null);
      assert.deepEqual(await verifyCheckpoint(store, note, { key: verifierKey }), []);
    } finally {
      await kind.close(store);
    }
  });

  test(`${name}: stored checkpoints keep the whole note, and a cosignature saved later is added to it`, async () => {
    const store = await kind.open();
    try {
      const log = evidenceLogOf(store);
      assert.equal(await log.latestCheckpoint(), null);
      await store.append(runsOf("one", 3));
      const first = await signCheckpoint(store, { key: signerKey, origin });
      const stored = await log.saveCheckpoint(first, { key: verifierKey });
      assert.equal(stored.treeSize, 9);
      assert.equal(stored.note, first);
      await store.append(runsOf("two", 2));
      const second = await signCheckpoint(store, { key: signerKey, origin });
      await log.saveCheckpoint(second, { key: verifierKey });
      const witness = keygen("witness.example");
      const cosigned = signNote(second.slice(0, second.indexOf("\n\n") + 1), witness.signerKey);
      const merged = await log.saveCheckpoint(second + cosigned.slice(cosigned.indexOf("\n\n") + 2), {
        key: verifierKey,
      });
      assert.equal(merged.note.split("\n— ").length, 3, "the log's signature and the cosignature");
      assert.equal((await log.latestCheckpoint())?.note, merged.note);
      assert.deepEqual(
        (await log.checkpoints()).map((entry) => entry.treeSize),
        [9, 15],
      );
      assert.deepEqual(await verifyCheckpoint(store, merged.note, { key: verifierKey }), []);
      await assert.rejects(log.saveCheckpoint("not a note", { key: verifierKey }), { code: "malformed_note" });
    } finally {
      await kind.close(store);
    }
  });

  test(`${name}: a reopened store continues its log, consistent with the checkpoints signed before`, async () => {
    let store = await kind.open();
    try {
      await store.append(runsOf("one"));
      const before = await signCheckpoint(store, { key: signerKey, origin });
      await evidenceLogOf(store).saveCheckpoint(before, { key: verifierKey });
      store = await kind.reopen(store);
      await store.append(runsOf("two"));
      const log = evidenceLogOf(store);
      assert.equal(await log.sequence(), 42);
      const old = specCheckpoint(specOpenNote((await log.latestCheckpoint())!.note, verifierKey)!);
      const now = specCheckpoint(specOpenNote(await signCheckpoint(store, { key: signerKey, origin }), verifierKey)!);
      const proof = await log.consistencyProof(old.size, now.size);
      assert.ok(specVerifyConsistency(old.size, now.size, old.root, now.root, proof));
      assert.deepEqual(await verifyCheckpoint(store, before, { key: verifierKey }), []);
    } finally {
      await kind.close(store);
    }
  });

  test(`${name}: log.checkpoint() signs and stores the whole log, checking the chains of the records since the last one`, async () => {
    const store = await kind.open();
    try {
      const log = evidenceLogOf(store);
      await store.append(runsOf("one", 4));
      const first = await log.checkpoint({ key: signerKey, origin });
      assert.equal(specCheckpoint(specOpenNote(first.note, verifierKey)!).size, 12);
      await store.append(runsOf("two", 3));
      // A new record rewritten behind the store's back: its digest no longer matches, so nothing is signed.
      await kind.tamper(
        store,
        `UPDATE {audit} SET record = replace(record, '"at":"2', '"at":"1') WHERE run_id = 'two-b' AND seq = 1`,
      );
      await assert.rejects(log.checkpoint({ key: signerKey, origin }), { code: "audit_invalid" });
      assert.equal((await log.checkpoints()).length, 1);
      await store.append(runsOf("three", 1));
      await kind.tamper(
        store,
        `UPDATE {audit} SET record = replace(record, '"at":"1', '"at":"2') WHERE run_id = 'two-b' AND seq = 1`,
      );
      const second = await log.checkpoint({ key: signerKey, origin });
      assert.equal(second.treeSize, 24);
      assert.deepEqual(await verifyCheckpoint(store, second.note, { key: verifierKey }), []);
    } finally {
      await kind.close(store);
    }
  });

  /** Tampering that passes verifyAudit today: each must fail verifyCheckpoint, naming the problem. */
  const tamperings: Array<{ what: string; sql: (records: AuditRecord[]) => string; expect: string[] }> = [
    {
      what: "a rewritten record (the last of its run, its digest recomputed)",
      sql: (records) => {
        const last = records.filter((record) => record.run === "one-b").at(-1)!;
        const rewritten = makeRecord("one-b", { seq: last.seq - 1, digest: last.prev! }, last.event, { x: 1 }, last.at);
        return `UPDATE {audit} SET record = '${JSON.stringify(rewritten)}', digest = '${rewritten.digest}' WHERE run_id = 'one-b' AND seq = ${last.seq}`;
      },
      expect: ["root_mismatch"],
    },
    {
      what: "a cut tail (the last records deleted)",
      sql: () => "DELETE FROM {audit} WHERE run_id IN ('one-c', 'one-b') AND seq = 6",
      expect: ["log_shorter"],
    },
    {
      what: "a removed run",
      sql: () => "DELETE FROM {audit} WHERE run_id = 'one-a'",
      expect: ["log_shorter"],
    },
    {
      what: "two records' places in the log swapped",
      sql: () =>
        "UPDATE {audit} SET leaf_index = -1 WHERE leaf_index = 3; UPDATE {audit} SET leaf_index = 3 WHERE leaf_index = 4; UPDATE {audit} SET leaf_index = 4 WHERE leaf_index = -1",
      expect: ["root_mismatch"],
    },
    {
      what: "a rebuilt chain (a record changed and every record after it rebuilt)",
      sql: (records) => rebuildSql(records, "one-a", 2),
      expect: ["root_mismatch"],
    },
  ];
  for (const { what, sql, expect } of tamperings) {
    test(`${name}: ${what} passes verifyAudit but fails verifyCheckpoint`, async () => {
      const store = await kind.open();
      try {
        const records = runsOf("one");
        await store.append(records);
        const note = await signCheckpoint(store, { key: signerKey, origin });
        await kind.tamper(store, sql(records));
        assert.deepEqual(verifyAudit(await store.read()), [], "verifyAudit passes");
        const problems = await verifyCheckpoint(store, note, { key: verifierKey });
        assert.deepEqual([...new Set(kinds(problems))], expect, JSON.stringify(problems));
        // More records after the tampering do not hide it.
        await store.append(runsOf("two"));
        assert.ok(kinds(await verifyCheckpoint(store, note, { key: verifierKey })).length > 0);
      } finally {
        await kind.close(store);
      }
    });
  }

  for (const [what, level, index] of [
    ["a changed stored leaf", 0, 5],
    ["a changed stored subtree", 2, 1],
  ] as const) {
    test(`${name}: ${what} of the log's table is found by verifyCheckpoint, which recomputes from the records`, async () => {
      const store = await kind.open();
      try {
        await store.append(runsOf("one"));
        const note = await signCheckpoint(store, { key: signerKey, origin });
        await kind.tamper(store, `UPDATE {nodes} SET hash = {zeros} WHERE level = ${level} AND idx = ${index}`);
        const problems = await verifyCheckpoint(store, note, { key: verifierKey });
        assert.deepEqual(kinds(problems), ["root_mismatch"]);
        assert.match(problems[0]!.message, new RegExp(`stored .* at level ${level}, index ${index}`));
      } finally {
        await kind.close(store);
      }
    });
  }
}

/** The SQL that rebuilds run `run` from `seq` on, with consistent digests, as a writer with access could. */
function rebuildSql(records: readonly AuditRecord[], run: string, seq: number): string {
  const chain = records.filter((record) => record.run === run);
  let head = seq === 0 ? null : { seq: seq - 1, digest: chain[seq - 1]!.digest };
  const updates: string[] = [];
  for (const record of chain.slice(seq)) {
    const data = record.seq === seq ? { rewritten: true } : record.data;
    const rebuilt = makeRecord(run, head, record.event, data, timeOf(record.seq));
    head = { seq: rebuilt.seq, digest: rebuilt.digest };
    updates.push(
      `UPDATE {audit} SET record = '${JSON.stringify(rebuilt)}', digest = '${rebuilt.digest}' WHERE run_id = '${run}' AND seq = ${record.seq}`,
    );
  }
  return updates.join(";\n");
}
