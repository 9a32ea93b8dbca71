import type { AuditRecord } from "../audit/audit-record.js";
import type { GuardedWork } from "../guards/guard.js";
import type { StopReason } from "../limits/limits.js";
import type { Failure, RunState } from "../state/run-state.js";
import type { AgentCore } from "./agent-core.js";
import type { BudgetSpent } from "../stores/budget-info.js";

/** Why the loop must end now, whatever the planner does: set inside `callModel`, read by the loop. */
export type ForcedEnd = { type: "stop"; reason: StopReason } | { type: "fail"; failure: Failure };

/**
 * What the limit checks and a model call read and write of a run being driven: the part of
 * `ActiveRun` they need, on its own, because `ActiveRun` builds its `callModel` from them and a module
 * never imports one that imports it.
 */
export interface LiveRun {
  readonly core: AgentCore;
  readonly state: RunState;
  readonly controller: AbortController;
  forcedEnd: ForcedEnd | undefined;
  /** Model calls of this run not settled yet. */
  readonly modelCalls: Set<Promise<unknown>>;
  /** Running time of the run so far, counting this process's segment. */
  elapsedMs(): number;
  /** Adds a record to the run's trail (written at the next checkpoint). */
  record(event: string, data: unknown): AuditRecord;
  /** The work the guards are told about. */
  work(): GuardedWork;
  /** Whether this process may still change the run: false once it ended, paused or was let go. */
  readonly isOpen: boolean;
  /**
   * Refuses work that comes in after the run ended or was let go: throws `code` (`run_ended` by
   * default; a model call gets `limit_reached`), and neither the state nor the trail changes.
   */
  assertOpen(code?: "run_ended" | "limit_reached"): void;
  /**
   * Adds what the run just spent to what its shared budget is charged at the next checkpoint (none
   * when the run has no budget); a charge given back is negative.
   */
  chargeBudget(charge: Partial<BudgetSpent>): void;
  /** What the run spent since its budget was last charged: not in the store's spend yet. */
  unchargedBudget(): BudgetSpent;
  /** Takes what the run spent and has not charged from its shared budget now, in a transaction of its own. */
  takeUncharged(): Promise<void>;
}
