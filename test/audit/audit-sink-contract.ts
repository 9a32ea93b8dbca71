// The contract every audit sink keeps, run by each implementation's test file (as hono's runTest).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { makeRecord, type AuditHead, type AuditRecord } from "../../src/audit/audit-record.js";
import type { SyncReadableAuditSink } from "../../src/audit/audit-sink.js";
import { verifyAudit } from "../../src/audit/verify-audit.js";
import { isLeashError } from "../../src/errors/index.js";
import { interleavedTrail } from "./audit-test-helpers.js";

function headOf(record: AuditRecord | undefined): AuditHead {
  assert.ok(record !== undefined);
  return { seq: record.seq, digest: record.digest };
}

/** A sink under test, closed (when it can be) at the end of each test. */
export type SinkUnderTest = SyncReadableAuditSink & { close?: () => Promise<void> };

async function withSink(makeSink: () => SinkUnderTest, body: (sink: SinkUnderTest) => Promise<void>): Promise<void> {
  const sink = makeSink();
  try {
    await body(sink);
  } finally {
    await sink.close?.();
  }
}

/** Runs the audit sink contract against sinks made by `makeSink`, each test with a fresh, empty one. */
export function auditSinkContract(name: string, makeSink: () => SinkUnderTest): void {
  const trail = interleavedTrail();

  describe(`${name} keeps the audit sink contract`, () => {
    test("holds nothing at first", () =>
      withSink(makeSink, async (sink) => {
        assert.deepEqual(sink.records, []);
        assert.deepEqual(await sink.read(), []);
        assert.deepEqual(await sink.read("alpha"), []);
      }));

    test("keeps appended records in order, and reads one run's or all", () =>
      withSink(makeSink, async (sink) => {
        for (const record of trail.slice(0, 7)) await sink.append([record]);
        await sink.append(trail.slice(7));
        await sink.append([]);
        assert.deepEqual(sink.records, trail);
        assert.deepEqual(await sink.read(), trail);
        assert.deepEqual(
          await sink.read("beta"),
          trail.filter((record) => record.run === "beta"),
        );
        assert.deepEqual(await sink.read("nobody"), []);
        assert.deepEqual(verifyAudit(sink.records), []);
      }));

    test("gives a fresh array on every read", () =>
      withSink(makeSink, async (sink) => {
        await sink.append(trail);
        sink.records.pop();
        (await sink.read()).pop();
        (await sink.read("alpha")).pop();
        assert.equal(sink.records.length, trail.length);
        assert.equal((await sink.read("alpha")).length, trail.filter((record) => record.run === "alpha").length);
      }));

    test("refuses a record that is not well-formed, and appends nothing of that call", () =>
      withSink(makeSink, async (sink) => {
        await sink.append(trail.slice(0, 3));
        const bad = { ...trail[3], data: Number.NaN } as unknown as AuditRecord;
        await assert.rejects(
          async () => sink.append([trail[3] as AuditRecord, bad]),
          (error: unknown) => isLeashError(error, "audit_corrupt") && /record 1/.test(error.message),
        );
        await assert.rejects(
          async () => sink.append("nope" as never),
          (error: unknown) => isLeashError(error, "audit_corrupt"),
        );
        assert.deepEqual(sink.records, trail.slice(0, 3));
      }));

    test("refuses a record that does not continue its run's chain before writing anything: a taken seq is stale_state, a gap or a wrong prev audit_corrupt", () =>
      withSink(makeSink, async (sink) => {
        const alpha = trail.filter((record) => record.run === "alpha");
        const beta = trail.filter((record) => record.run === "beta");
        await sink.append([...alpha.slice(0, 3), beta[0] as AuditRecord]);
        const refusals: Array<[AuditRecord[], string]> = [
          // Two writers that read the head at seq 1 both made a seq 2: the second lost the race.
          [[makeRecord("alpha", headOf(alpha[1]), "run_resumed", {}, "later")], "stale_state"],
          [[beta[1] as AuditRecord, alpha[4] as AuditRecord], "audit_corrupt"],
          [[makeRecord("alpha", { seq: 2, digest: "0".repeat(64) }, "run_resumed", {}, "later")], "audit_corrupt"],
          [[beta[2] as AuditRecord], "audit_corrupt"],
          [[alpha[3] as AuditRecord, alpha[3] as AuditRecord], "audit_corrupt"],
        ];
        for (const [records, code] of refusals) {
          await assert.rejects(
            async () => sink.append(records),
            (error: unknown) => isLeashError(error, code as "stale_state"),
            `${records.map((record) => `${record.run}/${record.seq}`).join(", ")} should be ${code}`,
          );
        }
        assert.deepEqual(sink.records, [...alpha.slice(0, 3), beta[0]]);
        await sink.append([alpha[3] as AuditRecord, beta[1] as AuditRecord]);
        assert.deepEqual(await sink.read("alpha"), alpha.slice(0, 4));
        assert.deepEqual(verifyAudit(sink.records), []);
      }));

    test("takes a run it holds nothing of from any seq: the rest of a trail whose start is kept elsewhere", () =>
      withSink(makeSink, async (sink) => {
        const gamma = trail.filter((record) => record.run === "gamma");
        await sink.append(gamma.slice(2, 4));
        assert.deepEqual(await sink.read("gamma"), gamma.slice(2, 4));
        await assert.rejects(
          async () => sink.append([gamma[2] as AuditRecord]),
          (error: unknown) => isLeashError(error, "stale_state"),
        );
      }));

    test("round-trips data with line ends, U+2028, NUL and keys __proto__ and constructor exactly", () =>
      withSink(makeSink, async (sink) => {
        const data = JSON.parse(
          '{"text":"one\\ntwo\\r\\u2028three\\u2029\\u0000four","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
        ) as unknown;
        const record = makeRecord("odd", null, "run_started", data, "2026-01-01T00:00:00.000Z");
        await sink.append([record]);
        const [read] = await sink.read("odd");
        assert.deepEqual(read, record);
        // A record keeps its data with the keys in RFC 8785's order; the sink gives them back so.
        assert.deepEqual(Object.keys(read?.data as object), ["__proto__", "constructor", "text"]);
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
        assert.deepEqual(verifyAudit(sink.records), []);
      }));
  });
}
