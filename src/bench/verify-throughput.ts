// The one-shot hash(), as verifyAudit uses: it skips the Hash object that createHash() builds.
import { hash } from "node:crypto";
import type { AuditRecord } from "../index.js";
import { MemoryAuditSink, verifyAudit } from "../index.js";
import { noopAgent } from "./leash-scenarios.js";
import type { SamplingOptions } from "./measure.js";
import { median, wantsAnotherRun } from "./measure.js";
import { rawCanonicalRecord } from "./raw-canonical.js";

/** How fast a trail is verified, beside the limit: canonicalizing and hashing every record. */
export interface VerificationResult {
  /** Records in the trail verified. */
  records: number;
  /** Runs they belong to. */
  runs: number;
  /** Problems `verifyAudit` found: 0 for this sound trail. */
  problems: number;
  /** `verifyAudit` over the whole trail, records per second (median of the samples). */
  verifyPerSecond: number;
  /**
   * The limit: raw RFC 8785 canonicalization (no checks) and SHA-256 of every record, digests
   * compared; the least work any verifier does.
   */
  canonicalizeAndHashPerSecond: number;
  /** SHA-256 alone over the records' canonical texts, made beforehand. */
  hashOnlyPerSecond: number;
}

/** A sound trail of at least `records` records: runs of `steps` no-op calls, in one memory sink. */
async function makeTrail(records: number, steps: number): Promise<{ records: AuditRecord[]; runs: number }> {
  const sink = new MemoryAuditSink();
  const agent = noopAgent(steps, { audit: sink });
  let runs = 0;
  while (sink.records.length < records) {
    await agent.run("call the no-op tool");
    runs++;
  }
  return { records: sink.records, runs };
}

function perSecond(count: number, task: () => void, sampling: SamplingOptions): number {
  for (let index = 0; index < sampling.warmup; index++) task();
  const times: number[] = [];
  let spent = 0;
  while (wantsAnotherRun(sampling, times.length, spent)) {
    const started = performance.now();
    task();
    const elapsed = performance.now() - started;
    times.push(elapsed);
    spent += elapsed;
  }
  return (count / median(times)) * 1000;
}

/**
 * Measures `verifyAudit` on a trail in records per second, and beside it the limit of any verifier:
 * raw RFC 8785 canonicalization and SHA-256 of every record, and SHA-256 alone.
 */
export async function measureVerification(options: {
  records: number;
  steps: number;
  sampling: SamplingOptions;
}): Promise<VerificationResult> {
  const trail = await makeTrail(options.records, options.steps);
  const { records } = trail;
  let problems = 0;
  const verifyRate = perSecond(
    records.length,
    () => {
      problems = verifyAudit(records).length;
    },
    options.sampling,
  );
  const hashAll = (canonical: (record: AuditRecord) => string): number => {
    let mismatches = 0;
    const rate = perSecond(
      records.length,
      () => {
        mismatches = 0;
        for (const record of records) {
          const digest = hash("sha256", canonical(record), "hex");
          if (digest !== record.digest) mismatches++;
        }
      },
      options.sampling,
    );
    if (mismatches !== 0) throw new Error(`${mismatches} records of a sound trail did not match their digests.`);
    return rate;
  };
  const limitRate = hashAll(rawCanonicalRecord);
  const texts = records.map(rawCanonicalRecord);
  const hashRate = perSecond(
    records.length,
    () => {
      for (const text of texts) hash("sha256", text, "hex");
    },
    options.sampling,
  );
  return {
    records: records.length,
    runs: trail.runs,
    problems,
    verifyPerSecond: verifyRate,
    canonicalizeAndHashPerSecond: limitRate,
    hashOnlyPerSecond: hashRate,
  };
}
