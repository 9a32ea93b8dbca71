import type { AuditRecord } from "../../audit/audit-record.js";
import { checkRecords } from "../../audit/check-records.js";
import type { RunState } from "../../state/run-state.js";
import { summaryText } from "../run-summary.js";
import type { StepWrites } from "../written-steps.js";
import { notificationEventsOf } from "../notification-info.js";
import type { OutboxWrite } from "./sqlite-outbox.js";

/**
 * A run's row and step rows as one create or save writes them, turned into text when the write is
 * asked for: a write waits for its batch's commit, and what it writes must be the state as it was
 * given, whatever the caller does with the object meanwhile.
 */
export interface RunWrite {
  runId: string;
  status: string;
  revision: number;
  /** The saved form without its steps (`RunState.headerText`). */
  header: string;
  updatedAt: string;
  /** The JSON of the run's summary without `change`, which the write's transaction gives it. */
  summary: string;
  /** How many steps the state has. */
  stepCount: number;
  /** The index of the first step written; `steps` holds the text of it and of every later step. */
  from: number;
  steps: string[];
  /** Whether the run's step rows past `stepCount` are deleted (the store object does not know them). */
  full: boolean;
  /** The outbox events the write makes true (see `notificationEventsOf`), inserted unless there already. */
  events: OutboxWrite[];
}

/** Audit records to insert, checked and turned into text when the write is asked for. */
export interface RecordWrite {
  records: AuditRecord[];
  texts: string[];
}

/** What a create or save of `state` writes, with the steps `writes` names and the events it and its records make true. */
export function runWriteOf(state: RunState, writes: StepWrites, records?: readonly AuditRecord[]): RunWrite {
  const steps: string[] = [];
  for (let index = writes.from; index < state.steps.length; index++) steps.push(state.stepText(index));
  return {
    runId: state.runId,
    status: state.status,
    revision: state.revision,
    header: state.headerText(),
    updatedAt: state.updatedAt,
    summary: summaryText(state),
    stepCount: state.steps.length,
    from: writes.from,
    steps,
    full: writes.full,
    events: notificationEventsOf(state, records).map((event) => ({
      type: event.type,
      key: event.key,
      timestamp: event.timestamp,
      data: JSON.stringify(event.data),
    })),
  };
}

/** Records checked (`audit_corrupt` for one that is not a record) and turned into the text stored. */
export function recordWriteOf(records: readonly AuditRecord[]): RecordWrite {
  const checked = checkRecords(records);
  return { records: checked, texts: checked.map((record) => JSON.stringify(record)) };
}
