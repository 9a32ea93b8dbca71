import { hostname } from "node:os";
import { Approval } from "../index.js";
import type { RunState, RunStore } from "../index.js";
import { errorResult } from "./gateway-runs.js";
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

/** The line that says how to approve a waiting run. */
export function approveLine(state: RunState, dbArgs: string): string {
  const digest = state.pending === undefined ? "" : ` --digest ${state.pending.digest.slice(0, 16)}`;
  return `leash approve ${state.runId} --as NAME${digest} ${dbArgs}`.trim();
}

/** The answer of a call that stops waiting before its run ended. */
export function stillWaiting(state: RunState | undefined, dbArgs: string): CallResult {
  if (state === undefined)
    return errorResult(
      `leash: the call was being started when this answer was sent; it may run: see \`leash runs ${dbArgs}\`.`,
    );
  if (state.status === "running")
    return errorResult(
      `leash: the call is running in run ${state.runId}; see it with \`leash show ${state.runId} ${dbArgs}\`.`,
    );
  return errorResult(
    `leash: the call waits for a person's approval in run ${state.runId}. Approve it with \`${approveLine(state, dbArgs)}\` (or deny it), then make the same call again: it runs once.`,
  );
}

/** Asks the person at the client, if `as` names them and the client can be asked; records the answer. */
export function askAtClient(
  store: RunStore,
  as: string | undefined,
  state: RunState,
  context: CallContext,
  signal: AbortSignal,
): void {
  const pending = state.pending;
  if (as === undefined || context.ask === undefined || pending === undefined) return;
  const question = `leash asks: may ${pending.tool} run (${pending.effect}) with ${JSON.stringify(pending.args).slice(0, 500)}?${pending.reason === undefined ? "" : ` Reason: ${pending.reason}.`} Run ${state.runId}.`;
  void context
    .ask(question, signal)
    .then(async (answer) => {
      if (answer === undefined || signal.aborted) return;
      const approval = new Approval(pending.digest, {
        granted: answer.granted,
        approver: as,
        ...(answer.note === undefined ? {} : { note: answer.note }),
      });
      await store.answer(state.runId, approval, { origin: { via: "mcp-elicitation", user: as, host: hostname() } });
    })
    // An answer that came too late (the run moved on) or a client that could not be asked: the wait goes on.
    .catch(() => undefined);
}
