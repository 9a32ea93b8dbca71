import { hash } from "node:crypto";
import { isDigest } from "../json/index.js";
import type { AuditHead, AuditRecord } from "./audit-record.js";
import { emptyInspectedRecord, inspectAuditRecord, safeMessage } from "./parse-audit-record.js";

/**
 * What kind of problem {@link verifyAudit} found. `digest_mismatch` is a store's, never
 * `verifyAudit`'s: a row whose `digest` column is not the digest in its record's text.
 */
export type AuditProblemKind =
  | "changed"
  | "missing"
  | "reordered"
  | "duplicate"
  | "broken_link"
  | "bad_start"
  | "malformed"
  | "truncated"
  | "digest_mismatch";

/** One problem of an audit trail, naming the run and seq where it was found when they are known. */
export interface AuditProblem {
  run: string | null;
  seq: number | null;
  problem: AuditProblemKind;
  message: string;
}

/** Options of {@link verifyAudit}. */
export interface VerifyAuditOptions {
  /**
   * Heads kept outside the trail (a saved state's `auditHead`, a signed checkpoint), by run id: the
   * trail must hold a record with each head's seq and digest, else the run is `truncated`. A chain alone
   * cannot show that its last records were cut off; a head kept elsewhere can.
   */
  heads?: Record<string, AuditHead>;
}

/** A record (or a malformed one that still names its run and seq) at its place in the trail. */
interface Entry {
  /** A malformed record holds its place (its seq), so that the rest of its chain can be checked. */
  malformed: boolean;
  seq: number;
  prev: string | null;
  digest: string | null;
  /** The digest recomputed from the record's content. */
  actual: string | null;
  position: number;
}

interface Chain {
  run: string;
  started: boolean;
  expected: number;
  lastStored: string | null;
  lastActual: string | null;
  problems: AuditProblem[];
}

/**
 * Checks every run's hash chain in an interleaved trail and lists what is wrong: `[]` when every chain
 * holds. It never throws, whatever it is given; what it cannot read is reported as `malformed`.
 *
 * Within a run: a record whose digest does not match its content is `changed`; the first record must be
 * seq 0 with `prev: null` (`bad_start`); a gap is `missing` (naming the first missing seq); a record that
 * does not link to the one before is `broken_link`; a second record with a seq already seen is
 * `duplicate`; a record out of seq order in the trail is `reordered`. Each problem is reported once,
 * and the walk resynchronises after it, so one deletion gives one problem. With `heads`, a run whose
 * trail lacks its head record is `truncated`.
 *
 * What a plain chain cannot find: a writer who edits a record and recomputes every later digest, or a
 * trail cut after its last record (pass `heads` for that).
 *
 * @example
 * const problems = verifyAudit(readAudit("audit.jsonl"), { heads: { [state.runId]: state.auditHead } });
 * for (const { run, seq, message } of problems) console.log(run, seq, message);
 */
export function verifyAudit(records: Iterable<AuditRecord> | undefined, options?: VerifyAuditOptions): AuditProblem[] {
  const problems: AuditProblem[] = [];
  try {
    if (records === undefined) {
      // A sink that cannot read synchronously (PostgreSQL) has no `.records`: read it with `await sink.read()`.
      problems.push(
        malformed(null, null, "No records were given (a sink without `.records` is read with `await sink.read()`)."),
      );
      return problems;
    }
    const runs = collect(records, problems);
    for (const [run, entries] of runs) verifyRun(run, entries, problems);
    checkHeads(options, runs, problems);
  } catch (error) {
    problems.push(malformed(null, null, `The trail could not be verified: ${safeMessage(error)}.`));
  }
  return problems;
}

function collect(records: Iterable<AuditRecord>, problems: AuditProblem[]): Map<string, Entry[]> {
  const runs = new Map<string, Entry[]>();
  const input: unknown = records;
  if (
    typeof input !== "object" ||
    input === null ||
    typeof (input as Iterable<unknown>)[Symbol.iterator] !== "function"
  ) {
    problems.push(malformed(null, null, `Expected an iterable of audit records, but got ${describe(input)}.`));
    return runs;
  }
  let position = 0;
  const fields = emptyInspectedRecord();
  try {
    for (const item of input as Iterable<unknown>) {
      const problem = inspectAuditRecord(item, fields);
      if (problem !== null) {
        const { run, seq, digest } = identify(item);
        const where = run === null ? "" : ` (run ${JSON.stringify(run)}${seq === null ? "" : `, seq ${seq}`})`;
        problems.push(
          malformed(run, seq, `Record ${position} of the trail${where} is not an audit record: ${problem}.`),
        );
        if (run !== null && seq !== null)
          add(runs, run, { malformed: true, seq, prev: null, digest, actual: null, position });
      } else {
        const actual = hash("sha256", fields.canonical, "hex");
        add(runs, fields.run, {
          malformed: false,
          seq: fields.seq,
          prev: fields.prev,
          digest: fields.digest,
          actual,
          position,
        });
      }
      position++;
    }
  } catch (error) {
    problems.push(malformed(null, null, `Reading the trail failed after ${position} records: ${safeMessage(error)}.`));
  }
  return runs;
}

function add(runs: Map<string, Entry[]>, run: string, entry: Entry): void {
  const entries = runs.get(run);
  if (entries === undefined) runs.set(run, [entry]);
  else entries.push(entry);
}

function verifyRun(run: string, entries: Entry[], problems: AuditProblem[]): void {
  const chain: Chain = { run, started: false, expected: 0, lastStored: null, lastActual: null, problems: [] };
  let inOrder = true;
  for (let index = 1; index < entries.length && inOrder; index++) {
    inOrder = (entries[index] as Entry).seq > (entries[index - 1] as Entry).seq;
  }
  // The common case, a sound trail, walks the records as they come, with no sorting.
  if (inOrder) for (const entry of entries) accept(chain, entry);
  else walkUnordered(chain, entries);
  chain.problems.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  for (const problem of chain.problems) problems.push(problem);
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

function accept(chain: Chain, entry: Entry): void {
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

function checkHeads(
  options: VerifyAuditOptions | undefined,
  runs: Map<string, Entry[]>,
  problems: AuditProblem[],
): void {
  if (options === undefined || options === null) return;
  const heads: unknown = (options as { heads?: unknown }).heads;
  if (heads === undefined) return;
  if (typeof heads !== "object" || heads === null || Array.isArray(heads)) {
    problems.push(malformed(null, null, "Expected `heads` to be an object of heads (`{ seq, digest }`) by run id."));
    return;
  }
  for (const run of Object.keys(heads)) {
    const head: unknown = (heads as Record<string, unknown>)[run];
    const headSeq: unknown = typeof head === "object" && head !== null ? (head as { seq?: unknown }).seq : undefined;
    const digest: unknown =
      typeof head === "object" && head !== null ? (head as { digest?: unknown }).digest : undefined;
    if (typeof headSeq !== "number" || !Number.isSafeInteger(headSeq) || headSeq < 0 || !isDigest(digest)) {
      problems.push(malformed(run, null, `The head given for run ${JSON.stringify(run)} is not \`{ seq, digest }\`.`));
      continue;
    }
    const seq = headSeq;
    const entries = runs.get(run) ?? [];
    if (entries.some((entry) => entry.seq === seq && entry.digest === digest)) continue;
    const last = entries.reduce((most, entry) => Math.max(most, entry.seq), -1);
    const message =
      last < 0
        ? `the trail holds no record of run ${JSON.stringify(run)}, whose head is seq ${seq}`
        : last < seq
          ? `the trail of run ${JSON.stringify(run)} ends at seq ${last}, but its head is seq ${seq}: the records after it were cut`
          : `the trail of run ${JSON.stringify(run)} holds no record seq ${seq} with the head's digest`;
    problems.push({ run, seq, problem: "truncated", message: capitalize(message) + "." });
  }
}

function report(chain: Chain, problem: AuditProblemKind, seq: number, message: string): void {
  chain.problems.push({ run: chain.run, seq, problem, message: `Run ${JSON.stringify(chain.run)}: ${message}.` });
}

function malformed(run: string | null, seq: number | null, message: string): AuditProblem {
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

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return "a string";
  return typeof value === "object" ? "an object that is not iterable" : `a ${typeof value}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
