import type { AuditHead } from "../audit/audit-record.js";
import { recordDigest } from "../audit/audit-record.js";
import { LeashError } from "../errors/index.js";
import type { LogTables } from "./log-tables.js";

/** How many leaves {@link checkNewChains} reads at a time. */
const CHUNK = 4096;

/**
 * Checks the chains of the records at leaves [start, end) only: each record's digest is recomputed
 * from its content, and each links to the record before it in its run (read from the store when that
 * one is an older leaf). What an automatic checkpoint checks before it signs, so that its cost is that
 * of the records since the last checkpoint, not of the whole log; the older records were checked when
 * that checkpoint was signed, and `verifyCheckpoint` checks everything. Throws `audit_invalid` naming
 * the first record that does not hold.
 */
export async function checkNewChains(tables: LogTables, start: number, end: number): Promise<void> {
  const heads = new Map<string, AuditHead | null>();
  for (let from = start; from < end; from += CHUNK) {
    for (const record of await tables.recordsBetween(from, Math.min(end, from + CHUNK))) {
      const where = `record ${record.seq} of run \`${record.run}\``;
      if (recordDigest(record) !== record.digest) throw invalid(`${where} does not match its digest`, record);
      let head = heads.get(record.run);
      if (head === undefined) {
        const digest = record.seq === 0 ? null : await tables.digestOf(record.run, record.seq - 1);
        head = digest === null ? null : { seq: record.seq - 1, digest };
      }
      const expected = head === null ? 0 : head.seq + 1;
      if (record.seq !== expected || record.prev !== (head?.digest ?? null)) {
        throw invalid(`${where} does not link to the record before it in its run`, record);
      }
      heads.set(record.run, { seq: record.seq, digest: record.digest });
    }
  }
}

function invalid(why: string, record: { run: string; seq: number }): LeashError {
  return new LeashError("audit_invalid", `The log's chains do not verify: ${why}; nothing was signed.`, {
    details: { runId: record.run, seq: record.seq },
  });
}
