import { hash } from "node:crypto";
import { isDigest } from "../json/index.js";
import { emptyInspectedRecord, inspectAuditRecord } from "./parse-audit-record.js";
import type { AuditProblem, AuditProblemKind } from "./audit-problem.js";

/**
 * @internal The walk of one run's hash chain, shared by {@link verifyAudit} (a trail given whole) and
 * `verifyAuditPages` (a trail read a page at a time): the same entries give the same problems.
 */
/** A record (or a malformed one that still names its run and seq) at its place in the trail. */
export interface Entry {
  /** A malformed record holds its place (its seq), so that the rest of its chain can be checked. */
  malformed: boolean;
  seq: number;
  prev: string | null;
  digest: string | null;
  /** The digest recomputed from the record's content. */
  actual: string | null;
  position: number;
}

export interface Chain {
  run: string;
  started: boolean;
  expected: number;
  lastStored: string | null;
  lastActual: string | null;
  problems: AuditProblem[];
}

/** The fields of records being read, reused from one record to the next. */
export type RecordFields = ReturnType<typeof emptyInspectedRecord>;

/** Fresh fields for {@link entryOf}. */
export function newRecordFields(): RecordFields {
  return emptyInspectedRecord();
}

/**
 * The entry of one item of a trail at `position`: its run, its seq, its links and the digest of its
 * content, recomputed. An item that is not a record is reported (`malformed`, naming its run and seq
 * where they can be read) and still holds its place in its chain when it names both.
 */
export function entryOf(
  item: unknown,
  position: number,
  fields: RecordFields,
  problems: AuditProblem[],
): { run: string; entry: Entry } | null {
  const problem = inspectAuditRecord(item, fields);
  if (problem !== null) {
    const { run, seq, digest } = identify(item);
    const where = run === null ? "" : ` (run ${JSON.stringify(run)}${seq === null ? "" : `, seq ${seq}`})`;
    problems.push(malformed(run, seq, `Record ${position} of the trail${where} is not an audit record: ${problem}.`));
    if (run === null || seq === null) return null;
    return { run, entry: { malformed: true, seq, prev: null, digest, actual: null, position } };
  }
  const actual = hash("sha256", fields.canonical, "hex");
  return {
    run: fields.run,
    entry: { malformed: false, seq: fields.seq, prev: fields.prev, digest: fields.digest, actual, position },
  };
}

/** A chain not started yet, for {@link accept}. */
export function newChain(run: string): Chain {
  return { run, started: false, expected: 0, lastStored: null, lastActual: null, problems: [] };
}

/** A chain's problems, in seq order, onto `problems`. */
export function flushChain(chain: Chain, problems: AuditProblem[]): void {
  chain.problems.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  for (const problem of chain.problems) problems.push(problem);
}

/** Walks one run's entries, in the order of the trail, and puts its problems onto `problems`. */
export function verifyRun(run: string, entries: Entry[], problems: AuditProblem[]): void {
  const chain = newChain(run);
  let inOrder = true;
  for (let index = 1; index < entries.length && inOrder; index++) {
    inOrder = (entries[index] as Entry).seq > (entries[index - 1] as Entry).seq;
  }
  // The common case, a sound trail, walks the records as they come, with no sorting.
  if (inOrder) for (const entry of entries) accept(chain, entry);
  else walkUnordered(chain, entries);
  flushChain(chain, problems);
}

/** Walks a run whose records are out of seq order or repeat a seq: by seq, one record per seq. */
function walkUnordered(chain: Chain, entries: Entry[]): void {
  const sorted = entries.slice().sort((a, b) => a.seq - b.seq);
  const chosen: Entry[] = [];
  let previousPosition = -1;
  for (let start = 0; start < sorted.length;) {
    let end = start + 1;
    while (end < sorted.length && (sorted[end] as Entry).seq === (sorted[start] as Entry).seq) end++;
    const representative = choose(chain, sorted, start, end, previousPosition);
    accept(chain, representative);
    for (let index = start; index < end; index++) {
      const entry = sorted[index] as Entry;
      if (entry !== representative) reportExtra(chain, representative, entry);
    }
    chosen.push(representative);
    previousPosition = representative.position;
    start = end;
  }
  for (const entry of outOfOrder(chosen)) {
    report(
      chain,
      "reordered",
      entry.seq,
      `seq ${entry.seq} is out of order: it stands at position ${entry.position} of the trail`,
    );
  }
}

/**
 * Of several records with one seq, the one that best continues the chain: a sound record over a
 * changed one, one that links to the record before over one that does not, and, among equals, the first
 * that stands after the record before it in the trail (so that a copy inserted earlier is the duplicate).
 */
function choose(chain: Chain, sorted: Entry[], start: number, end: number, previousPosition: number): Entry {
  let best = sorted[start] as Entry;
  let bestScore = -1;
  for (let index = start; index < end; index++) {
    const entry = sorted[index] as Entry;
    let score = 0;
    if (!entry.malformed) {
      score = 1;
      if (entry.actual === entry.digest) score += 8;
      const prev = entry.prev;
      if (chain.started ? prev === chain.lastStored || prev === chain.lastActual : prev === null) score += 4;
      if (entry.position > previousPosition) score += 2;
    }
    if (score > bestScore) {
      best = entry;
      bestScore = score;
    }
  }
  return best;
}

/** Takes the next entry of a chain in seq order, reporting what does not hold. */
export function accept(chain: Chain, entry: Entry): void {
  const { seq, malformed } = entry;
  if (!chain.started) {
    chain.started = true;
    if (seq !== 0) {
      const gap = seq === 1 ? "seq 0 is" : `seq 0 to ${seq - 1} are`;
      report(chain, "bad_start", seq, `the run begins at seq ${seq}: ${gap} missing`);
    } else if (!malformed && entry.prev !== null) {
      report(chain, "bad_start", 0, "its first record links to a record before it (`prev` is not null)");
    }
  } else if (seq > chain.expected) {
    const gap = seq - chain.expected === 1 ? `seq ${chain.expected} is` : `seq ${chain.expected} to ${seq - 1} are`;
    report(
      chain,
      "missing",
      chain.expected,
      `${gap} missing: the chain jumps from seq ${chain.expected - 1} to seq ${seq}`,
    );
  } else if (
    !malformed &&
    chain.lastStored !== null &&
    entry.prev !== chain.lastStored &&
    entry.prev !== chain.lastActual
  ) {
    // A link to either the stored or the recomputed digest of the record before is sound here: when that
    // record was changed, the problem is reported once, there.
    report(
      chain,
      "broken_link",
      seq,
      `seq ${seq} does not link to seq ${seq - 1} (its \`prev\` is not that record's digest)`,
    );
  }
  if (!malformed && entry.actual !== entry.digest) {
    report(chain, "changed", seq, `seq ${seq} was changed: its digest does not match its content`);
  }
  chain.expected = seq + 1;
  chain.lastStored = entry.digest;
  chain.lastActual = entry.actual;
}

function reportExtra(chain: Chain, representative: Entry, entry: Entry): void {
  // A malformed record was reported already.
  if (entry.malformed) return;
  const { seq, position } = entry;
  if (entry.actual !== entry.digest) {
    report(chain, "changed", seq, `another record with seq ${seq} (position ${position}) does not match its digest`);
  } else if (entry.digest === representative.digest) {
    report(chain, "duplicate", seq, `seq ${seq} appears more than once (a copy at position ${position})`);
  } else {
    report(chain, "duplicate", seq, `a second, different record claims seq ${seq} (position ${position})`);
  }
}

/** The records off the longest run of the trail that is in seq order: those that were moved. */
function outOfOrder(chosen: Entry[]): Entry[] {
  const count = chosen.length;
  const tails = new Int32Array(count);
  const previous = new Int32Array(count);
  let length = 0;
  for (let index = 0; index < count; index++) {
    const position = (chosen[index] as Entry).position;
    let low = 0;
    let high = length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((chosen[tails[middle] as number] as Entry).position < position) low = middle + 1;
      else high = middle;
    }
    previous[index] = low > 0 ? (tails[low - 1] as number) : -1;
    tails[low] = index;
    if (low === length) length++;
  }
  const kept = new Uint8Array(count);
  for (let index = length > 0 ? (tails[length - 1] as number) : -1; index >= 0; index = previous[index] as number) {
    kept[index] = 1;
  }
  return chosen.filter((_, index) => kept[index] === 0);
}

function report(chain: Chain, problem: AuditProblemKind, seq: number, message: string): void {
  chain.problems.push({ run: chain.run, seq, problem, message: `Run ${JSON.stringify(chain.run)}: ${message}.` });
}

export function malformed(run: string | null, seq: number | null, message: string): AuditProblem {
  return { run, seq, problem: "malformed", message };
}

/** The run, seq and digest of something that is not a well-formed record, where they can be read. */
function identify(item: unknown): { run: string | null; seq: number | null; digest: string | null } {
  try {
    if (typeof item !== "object" || item === null) return { run: null, seq: null, digest: null };
    const { run, seq, digest } = item as Record<string, unknown>;
    return {
      run: typeof run === "string" && run !== "" && run.isWellFormed() ? run : null,
      seq: Number.isSafeInteger(seq) && (seq as number) >= 0 ? (seq as number) : null,
      digest: isDigest(digest) ? digest : null,
    };
  } catch {
    return { run: null, seq: null, digest: null };
  }
}
