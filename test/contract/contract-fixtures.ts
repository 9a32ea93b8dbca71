// What the store contract suite builds its cases from: plain states and chains of records made
// through the public API, and a small agent whose one write needs a person's approval.
import { Agent, Decision, Policy, RunState, isLeashError, makeRecord } from "../../src/index.js";
import type { AuditHead, AuditRecord, AuditSink, ErrorCode, Planner, RunStatus, RunStore } from "../../src/index.js";
import { writeTextTool } from "../helpers/text-tool.js";

/**
 * Writes straight to a store's tables through its driver, behind the store's back, for the tests
 * that damage a row: only stores with a driver (SQLite on a file, PostgreSQL) have one.
 */
export interface RawAccess {
  /** Replaces the stored text of a run's state header (its saved form without its steps). */
  setStateText(runId: string, text: string): Promise<void>;
  /** Replaces the stored text of one audit record. */
  setRecordText(runId: string, seq: number, text: string): Promise<void>;
}

/** What each implementation hands the suite: a fresh, empty store and how to remove it. */
export interface StoreUnderTest {
  store: RunStore & AuditSink;
  cleanup(): Promise<void>;
  /** Driver access to the store's rows, when it has any. */
  raw?: RawAccess;
  /**
   * How a child process opens the same store (see test/fixtures/stores/open-store.ts), for a store
   * that other processes can share.
   */
  child?: { kind: "sqlite" | "postgres"; location: string; env?: Record<string, string> };
}

/** Builds a fresh store for one test. */
export type MakeStore = () => Promise<StoreUnderTest>;

/** Runs a test body on a fresh store, and removes the store whatever happens. */
export async function withStore(
  makeStore: MakeStore,
  body: (store: RunStore & AuditSink, raw: RawAccess | undefined, child: StoreUnderTest["child"]) => Promise<void>,
): Promise<void> {
  const made = await makeStore();
  try {
    await body(made.store, made.raw, made.child);
  } finally {
    await made.cleanup();
  }
}

const AT = "2026-01-01T00:00:00.000Z";

/** A valid stored state of a run, as a store receives it from the core. */
export function stateOf(
  runId: string,
  options: { revision?: number; status?: RunStatus; head?: AuditHead | null; goal?: string } = {},
): RunState {
  return RunState.fromJSON({
    format: "leash.run-state",
    version: 1,
    runId,
    agent: "contract",
    goal: options.goal ?? `the goal of ${runId}`,
    status: options.status ?? "running",
    steps: [],
    answers: [],
    usage: { tokens: 0, cost: 0 },
    toolCalls: 0,
    revision: options.revision ?? 1,
    auditHead: options.head ?? null,
    attempt: 1,
    nonce: `nonce-${runId}`,
    rejections: 0,
    elapsedMs: 0,
    said: [],
    ran: [],
    limits: {},
    createdAt: AT,
    updatedAt: AT,
  });
}

/** The next `count` records of a run's chain after `after` (the last record so far, or none). */
export function chain(runId: string, count: number, after: AuditRecord | null = null, event = "note"): AuditRecord[] {
  const records: AuditRecord[] = [];
  let head: AuditHead | null = after === null ? null : { seq: after.seq, digest: after.digest };
  for (let index = 0; index < count; index++) {
    const record = makeRecord(runId, head, head === null ? "run_started" : event, { index }, AT);
    records.push(record);
    head = { seq: record.seq, digest: record.digest };
  }
  return records;
}

/** The head a state saved after these records points at. */
export function headOf(records: readonly AuditRecord[]): AuditHead | null {
  const last = records.at(-1);
  return last === undefined ? null : { seq: last.seq, digest: last.digest };
}

/** Whether an error is a leash error with one of the codes. */
export function refusedWith(...codes: ErrorCode[]): (error: unknown) => boolean {
  return (error) => codes.some((code) => isLeashError(error, code));
}

/** Save "the report" once approved, then answer with the step's outcome. */
export const writerPlanner: Planner = (state) =>
  state.steps.length === 0
    ? Decision.act("save", { text: "the report" })
    : Decision.finish(state.steps.at(-1)?.outcome ?? null);

/** An agent on the store (as store and sink) whose one write pauses for approval; `written` counts its effect. */
export function writerAgent(store: RunStore & AuditSink, written: string[]): Agent {
  return writerAgentOn({ store, audit: store }, written);
}

/** The same agent on any store and sink, or on a sink alone (no store: the caller holds the copies). */
export function writerAgentOn(where: { store?: RunStore; audit: AuditSink }, written: string[]): Agent {
  const save = writeTextTool({
    name: "save",
    onWrite: (text) => {
      written.push(text);
      return "saved";
    },
  });
  return new Agent({
    tools: [save],
    planner: writerPlanner,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    ...where,
  });
}
