import { LeashError, StateError } from "../errors/index.js";
import type { AuditHead, AuditRecord } from "./audit-record.js";

/**
 * @internal Checks that records continue their runs' chains, before anything of them is written, and
 * returns each run's new head. `headOf` gives the last record a sink already holds of a run (`null`
 * when it holds none). The same rule for every sink and store:
 *
 * - the first record of a run in the batch at a seq the sink already holds means another writer moved
 *   the chain since this one read it: `StateError` `stale_state` (a lost race, nothing written);
 * - a record that skips a seq, links to another digest than the record before it, or goes back inside
 *   the batch was never made by the core's chain: `LeashError` `audit_corrupt`.
 *
 * With `continuesElsewhere`, a run the sink holds nothing of may start at any seq: an audit sink may
 * hold the rest of a trail whose start is kept elsewhere (a caller with no store that resumes its own
 * copy on a new sink). A store holds a run's whole trail, and always starts it at seq 0.
 */
export function checkChain(
  records: readonly AuditRecord[],
  headOf: (runId: string) => AuditHead | null,
  options: { continuesElsewhere?: boolean } = {},
): Map<string, AuditHead> {
  const heads = new Map<string, AuditHead | null>();
  for (const record of records) {
    const known = heads.has(record.run);
    const head = known ? (heads.get(record.run) ?? null) : headOf(record.run);
    if (!known && head === null && options.continuesElsewhere === true) {
      heads.set(record.run, { seq: record.seq, digest: record.digest });
      continue;
    }
    const expectedSeq = head === null ? 0 : head.seq + 1;
    const expectedPrev = head === null ? null : head.digest;
    if (record.seq !== expectedSeq || record.prev !== expectedPrev) {
      const details = { runId: record.run, seq: record.seq, expectedSeq };
      if (!known && record.seq < expectedSeq) {
        throw new StateError(
          "stale_state",
          `The trail of run \`${record.run}\` ends at seq ${expectedSeq - 1}, so record ${record.seq} does not continue it: another writer moved the chain; nothing was written.`,
          { details },
        );
      }
      throw new LeashError(
        "audit_corrupt",
        `Record ${record.seq} of run \`${record.run}\` does not continue its chain (expected seq ${expectedSeq} linking to the record before it); nothing was written.`,
        { details },
      );
    }
    heads.set(record.run, { seq: record.seq, digest: record.digest });
  }
  return heads as Map<string, AuditHead>;
}
