import type { RunState } from "../state/run-state.js";
import type { CallResult } from "./gateway-runs.js";

/** What a waiting call may do while it waits: say so to the client, and learn that the client gave up. */
export interface CallContext {
  signal?: AbortSignal;
  /** Called while the call waits for a person, with a line that says what to do. */
  progress?: (message: string) => void;
  /**
   * Asks the person at the client (MCP elicitation), when the client can be asked: their answer, or
   * `undefined` when they did not answer.
   */
  ask?: (question: string, signal: AbortSignal) => Promise<{ granted: boolean; note?: string } | undefined>;
  /**
   * Who makes the call, when the transport tells (`--http`: the name the bearer token belongs to).
   * Identical calls of different clients are different runs; absent (stdio), the one client that
   * spawned the gateway.
   */
  client?: string;
  /** Whether the tool lists an `outputSchema` (a waiting call's answer then carries its status in `_meta` only). */
  outputSchema?: boolean;
}

interface Caller {
  context: CallContext;
  deadline: number;
}

/**
 * One call's work shared by the identical calls made at once in this process, independent of any one
 * caller: progress goes to every caller attached, elicitation asks through one that can be asked, the
 * wait lasts until the latest caller's wait ends, and the work's signal aborts only once every caller
 * has left. Each caller gets the shared result, or its own "still waiting" answer when its signal
 * aborts or its wait ends while the call waits for a person.
 */
export class SharedCall {
  /** The run the work is on, once it has one. */
  latest: RunState | undefined;
  readonly #callers = new Set<Caller>();
  readonly #controller = new AbortController();
  readonly #waitMs: number;
  readonly #stillWaiting: (state: RunState | undefined) => CallResult;

  constructor(waitMs: number, stillWaiting: (state: RunState | undefined) => CallResult) {
    this.#waitMs = waitMs;
    this.#stillWaiting = stillWaiting;
  }

  /** The context the shared work runs with. */
  readonly context: CallContext = {
    signal: this.#controller.signal,
    progress: (message) => {
      for (const caller of this.#callers) caller.context.progress?.(message);
    },
    ask: (question, signal) => {
      const asker = [...this.#callers].find(
        (caller) => caller.context.ask !== undefined && !caller.context.signal?.aborted,
      );
      return asker?.context.ask?.(question, signal) ?? Promise.resolve(undefined);
    },
  };

  /** The answer of a caller that stops waiting while the call waits (or runs elsewhere). */
  waitingAnswer(state: RunState | undefined): CallResult {
    return this.#stillWaiting(state);
  }

  /** When the work stops waiting for a person: the latest deadline of the callers attached. */
  get deadline(): number {
    let latest = 0;
    for (const caller of this.#callers) latest = Math.max(latest, caller.deadline);
    return latest;
  }

  /** Attaches a caller to the work: its answer. */
  attach(context: CallContext, work: Promise<CallResult>): Promise<CallResult> {
    const caller: Caller = { context, deadline: Date.now() + this.#waitMs };
    this.#callers.add(caller);
    return new Promise<CallResult>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = (): void => {
        clearTimeout(timer);
        context.signal?.removeEventListener("abort", aborted);
        this.#callers.delete(caller);
        if (this.#callers.size === 0) this.#controller.abort();
      };
      const aborted = (): void => {
        leave();
        resolve(this.#stillWaiting(this.latest));
      };
      // Its wait ended: it answers now if the call still waits for a person (a call being executed
      // answers with its result).
      const waited = (): void => {
        if (this.latest?.status === "awaiting_approval") aborted();
        else timer = setTimeout(waited, Math.max(50, this.#waitMs / 10));
      };
      void work.finally(leave).then(resolve, reject);
      if (context.signal?.aborted === true) return aborted();
      context.signal?.addEventListener("abort", aborted, { once: true });
      timer = setTimeout(waited, this.#waitMs);
    });
  }
}
