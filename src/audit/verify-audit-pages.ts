import type { AuditRecord } from "./audit-record.js";
import {
  accept,
  entryOf,
  flushChain,
  newChain,
  newRecordFields,
  verifyRun,
  type Chain,
  type Entry,
} from "./chain-walk.js";
import type { AuditProblem } from "./verify-audit.js";

/** A trail read a page at a time, in the order of the trail: each call reads it again from its start. */
export type AuditPages = () => AsyncIterable<readonly AuditRecord[]> | Iterable<readonly AuditRecord[]>;

/** Options of {@link verifyAuditPages}. */
export interface VerifyAuditPagesOptions {
  /**
   * Check each run's records in seq order, in the places its records hold in the trail, rather than
   * in the order stored: for a store whose concurrent writers may commit positions out of seq order
   * (PostgreSQL), where the order of rows says nothing about tampering.
   */
  runsInSeqOrder?: boolean;
}

/** One run as the first pass walks it: its chain while its records come in seq order, else null. */
interface RunWalk {
  chain: Chain | null;
  lastSeq: number;
}

/**
 * Checks every run's hash chain of a trail that is read a page at a time, and finds exactly what
 * `verifyAudit` finds given the whole trail in that order, in the same order, while holding only one
 * page and each run's chain head. A run whose records come out of seq order (a tampered or reordered
 * trail) is walked again: a second read of the trail collects that run's records alone, so only such
 * runs are ever held whole. An error thrown while reading a page is thrown.
 *
 * @example
 * const problems = await verifyAuditPages(() => pagesOf(store));
 */
export async function verifyAuditPages(
  pages: AuditPages,
  options: VerifyAuditPagesOptions = {},
): Promise<AuditProblem[]> {
  const loose: AuditProblem[] = [];
  const runs = new Map<string, RunWalk>();
  const reread = new Map<string, Entry[]>();
  const fields = newRecordFields();
  let position = 0;
  for await (const page of pages()) {
    for (const item of page) {
      const read = entryOf(item, position++, fields, loose);
      if (read === null) continue;
      let walk = runs.get(read.run);
      if (walk === undefined) {
        walk = { chain: newChain(read.run), lastSeq: -1 };
        runs.set(read.run, walk);
      }
      if (walk.chain === null) continue;
      if (read.entry.seq <= walk.lastSeq) {
        // Out of seq order: what it means depends on every record of the run, read again below.
        walk.chain = null;
        reread.set(read.run, []);
        continue;
      }
      accept(walk.chain, read.entry);
      walk.lastSeq = read.entry.seq;
    }
  }
  if (reread.size > 0) await collectAgain(pages, reread, options.runsInSeqOrder === true);
  const problems = loose;
  for (const [run, walk] of runs) {
    if (walk.chain !== null) flushChain(walk.chain, problems);
    else verifyRun(run, reread.get(run)!, problems);
  }
  return problems;
}

/** Reads the trail again, keeping the entries of the runs in `reread`, at their places in the trail. */
async function collectAgain(pages: AuditPages, reread: Map<string, Entry[]>, inSeqOrder: boolean): Promise<void> {
  const fields = newRecordFields();
  // Each record was reported already, in the first pass.
  const reported: AuditProblem[] = [];
  let position = 0;
  for await (const page of pages()) {
    for (const item of page) {
      const here = position++;
      const run = (item as { run?: unknown } | null)?.run;
      const entries = typeof run === "string" ? reread.get(run) : undefined;
      if (entries === undefined) continue;
      const read = entryOf(item, here, fields, reported);
      if (read !== null && read.run === run) entries.push(read.entry);
      reported.length = 0;
    }
  }
  if (!inSeqOrder) return;
  for (const entries of reread.values()) {
    // Each run's records by seq, in the places its records hold in the trail, in their order.
    const places = entries.map((entry) => entry.position);
    entries.sort((left, right) => left.seq - right.seq);
    entries.forEach((entry, index) => {
      entry.position = places[index]!;
    });
  }
}
