/** What a tool's `execute` is given besides its arguments. */
export interface ToolContext {
  /** The run this call belongs to. */
  readonly runId: string;
  /** The index of the step in `state.steps`. */
  readonly step: number;
  /** The person the work runs as, if the run names one. */
  readonly principal: string | undefined;
  /** Aborted when the call times out or the run is cancelled. */
  readonly signal: AbortSignal;
  /**
   * Stable for this run, step and approval: the same on every retry of the same call, so a target
   * that dedupes (a payment API, an idempotent insert) can recognise a repeat after a crash.
   */
  readonly idempotencyKey: string;
  /**
   * Grows with every claim of the run (a resume, a worker's lease, a crash recovery): a call made
   * under a later claim always carries a larger token than any call of an earlier one. A downstream
   * system that keeps the largest token it has seen for a run can refuse a late call from a process
   * that lost the run (a stalled worker whose lease lapsed).
   */
  readonly fencingToken: number;
}
