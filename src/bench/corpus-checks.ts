import type { AuditRecord, RunState } from "../index.js";
import { verifyAudit } from "../index.js";

/** The records of each run, in trail order. */
export function recordsByRun(records: readonly AuditRecord[]): Map<string, AuditRecord[]> {
  const byRun = new Map<string, AuditRecord[]>();
  for (const record of records) {
    const list = byRun.get(record.run);
    if (list === undefined) byRun.set(record.run, [record]);
    else list.push(record);
  }
  return byRun;
}

/**
 * Whether every run's chain verifies: no problem in the shared trail, and each run's trail holds the
 * head its final state points at (so no run's last records were cut off either).
 */
export function auditVerified(records: readonly AuditRecord[], states: readonly RunState[]): boolean {
  const heads: Record<string, { seq: number; digest: string }> = {};
  for (const state of states) {
    if (state.auditHead === null) return false;
    heads[state.runId] = state.auditHead;
  }
  return verifyAudit(records, { heads }).length === 0;
}

function stepOf(record: AuditRecord): unknown {
  const data = record.data;
  return typeof data === "object" && data !== null && !Array.isArray(data) ? data.step : undefined;
}

/**
 * Whether every tool call has its records: each `tool_started` is followed by a `tool_ended` of the
 * same step, and a run has as many `tool_started` records as its state counts tool calls.
 */
export function everyCallAudited(
  byRun: ReadonlyMap<string, readonly AuditRecord[]>,
  states: readonly RunState[],
): boolean {
  return states.every((state) => {
    const records = byRun.get(state.runId) ?? [];
    let started = 0;
    const open = new Set<unknown>();
    for (const record of records) {
      if (record.event === "tool_started") {
        started++;
        open.add(stepOf(record));
      } else if (record.event === "tool_ended") {
        if (!open.delete(stepOf(record))) return false;
      }
    }
    return open.size === 0 && started === state.toolCalls;
  });
}

/** Whether a run's trail shows no tool started. */
function noToolStarted(byRun: ReadonlyMap<string, readonly AuditRecord[]>, state: RunState): boolean {
  return state.toolCalls === 0 && !(byRun.get(state.runId) ?? []).some((record) => record.event === "tool_started");
}

/**
 * Whether every action of every run was denied for a missing scope: each run asked for at least one
 * action, every act step is `scope_denied`, and no tool started.
 */
export function everyActionDenied(
  byRun: ReadonlyMap<string, readonly AuditRecord[]>,
  states: readonly RunState[],
): boolean {
  return states.every((state) => {
    const acts = state.steps.filter((step) => step.decision.type === "act");
    return acts.length > 0 && acts.every((step) => step.outcome === "scope_denied") && noToolStarted(byRun, state);
  });
}

/** Whether every run paused for approval of the write, before it ran. */
export function everyRunPausedBeforeWrite(
  byRun: ReadonlyMap<string, readonly AuditRecord[]>,
  states: readonly RunState[],
  writeTool: string,
): boolean {
  return states.every(
    (state) =>
      state.status === "awaiting_approval" &&
      state.pending?.kind === "call" &&
      state.pending.tool === writeTool &&
      noToolStarted(byRun, state),
  );
}
