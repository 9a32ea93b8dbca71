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
}
