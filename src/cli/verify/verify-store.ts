import { isLeashError } from "../../errors/leash-error.js";
import { stateAgreesWithTrail } from "../../state/state-agrees-with-trail.js";
import { verifyAudit } from "../../audit/verify-audit.js";
import { evidenceLogOf } from "../../evidence/index.js";
import type { EvidenceLogOwner } from "../../evidence/index.js";
import type { AuditHead, AuditRecord } from "../../audit/audit-record.js";
import type { RunState } from "../../state/run-state.js";
import type { CliStore } from "../../operate/open-store.js";
import { unreadableSummary } from "../unreadable-run.js";
import { statePages } from "../../state/state-pages.js";
import { headsWith } from "./parse-head.js";
import type { TrailProblem, TrailReport } from "./trail-report.js";

/** A record the store could not read back, as a problem naming its run and seq. */
function unreadable(error: unknown, runId: string | null): TrailProblem | null {
  if (!isLeashError(error, "audit_corrupt")) return null;
  const { runId: run, seq } = error.details;
  return {
    run: typeof run === "string" ? run : runId,
    seq: typeof seq === "number" ? seq : null,
    problem: "corrupt",
    message: error.message,
  };
}

/**
 * The records of a store's trail. A row that is not a record makes reading the whole trail fail, so
 * the runs are then read one by one, and only the run with the bad row is reported unread.
 */
async function readTrail(
  store: CliStore,
  runIds: readonly string[],
): Promise<{ records: AuditRecord[]; problems: TrailProblem[] }> {
  try {
    return { records: await store.read(), problems: [] };
  } catch (error) {
    if (unreadable(error, null) === null) throw error;
  }
  const records: AuditRecord[] = [];
  const problems: TrailProblem[] = [];
  for (const runId of runIds) {
    try {
      records.push(...(await store.read(runId)));
    } catch (error) {
      const problem = unreadable(error, runId);
      if (problem === null) throw error;
      problems.push(problem);
    }
  }
  return { records, problems };
}

/**
 * Every stored run's saved state against its records (`state_mismatch`), but for the runs whose
 * records could not be read, reported already.
 */
function stateProblems(
  states: readonly RunState[],
  records: readonly AuditRecord[],
  unread: ReadonlySet<string | null>,
): TrailProblem[] {
  const byRun = new Map<string, AuditRecord[]>();
  for (const record of records) {
    const list = byRun.get(record.run);
    if (list === undefined) byRun.set(record.run, [record]);
    else list.push(record);
  }
  return states
    .filter((state) => !unread.has(state.runId))
    .flatMap((state) => stateAgreesWithTrail(state, byRun.get(state.runId) ?? []).problems)
    .map(({ run, step, field, message }) => ({
      run,
      seq: null,
      problem: "state_mismatch" as const,
      message,
      field,
      ...(step === undefined ? {} : { step }),
    }));
}

/**
 * Verifies a store's trail: every run's chain, and for each stored run that the trail holds the
 * state's `auditHead` (a trail cut after its last record shows only so), plus `--head` if given, and
 * that every row's `digest` column is its record's digest (`digest_mismatch`), and that every stored
 * run's saved state says what its records say (`state_mismatch`, naming the step and the field).
 */
export async function verifyStore(
  store: CliStore,
  path: string,
  head: string | undefined,
  run: string | undefined,
  kind: TrailReport["kind"] = "sqlite",
): Promise<TrailReport> {
  // A run whose saved state cannot be read is a problem of the store, named, not a reason to stop:
  // the other runs are verified all the same.
  const unreadableRuns: TrailProblem[] = [];
  const onUnreadable = ({ runId, error }: { runId: string; error: Error }) => {
    const { code, message } = unreadableSummary(runId, error);
    unreadableRuns.push({
      run: runId,
      seq: null,
      problem: "unreadable_state",
      message: `The saved state of run ${runId} cannot be read (${code}): ${message}`,
    });
  };
  // The states are read a page at a time, each page checked against its runs' records read after
  // it (a trail ahead of a state is no mismatch), so memory holds one page of states, not the store.
  const stateHeads: Record<string, AuditHead> = {};
  const stateRuns: string[] = [];
  const pageProblems: TrailProblem[] = [];
  const unread = new Set<string | null>();
  for await (const states of statePages(store, { onUnreadable })) {
    const pageRecords: AuditRecord[] = [];
    for (const state of states) {
      stateRuns.push(state.runId);
      if (state.auditHead !== null) stateHeads[state.runId] = state.auditHead;
      try {
        pageRecords.push(...(await store.read(state.runId)));
      } catch (error) {
        // Its rows are reported unread by the whole trail's reading below.
        if (unreadable(error, state.runId) === null) throw error;
        unread.add(state.runId);
      }
    }
    pageProblems.push(...stateProblems(states, pageRecords, unread));
  }
  const { records, problems } = await readTrail(store, stateRuns);
  const runs = [
    ...new Set([
      ...records.map((record) => record.run),
      ...stateRuns,
      ...unreadableRuns.map((problem) => problem.run as string),
    ]),
  ];
  const heads = headsWith(stateHeads, runs, head, run);
  // A run whose rows could not be read was reported already; checking its head too would report it twice.
  for (const problem of problems) unread.add(problem.run);
  const checked = Object.fromEntries(Object.entries(heads).filter(([runId]) => !unread.has(runId)));
  problems.push(...verifyAudit(records, { heads: checked }), ...unreadableRuns);
  // A run whose trail lacks its state's head is `truncated` already: its state is not checked again.
  const cut = new Set(problems.filter((problem) => problem.problem === "truncated").map((problem) => problem.run));
  problems.push(...pageProblems.filter((problem) => !unread.has(problem.run) && !cut.has(problem.run)));
  // A row whose digest column is not its record's digest: the records alone cannot show it.
  problems.push(...(await evidenceLogOf(store as unknown as EvidenceLogOwner).rowProblems()));
  return { path, kind, records: records.length, runs: runs.length, heads, problems };
}
