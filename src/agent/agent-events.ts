import type { Failure } from "../state/run-state.js";

/** What `run_failed` carries: once per failed attempt. */
export interface RunFailedEvent {
  task: string;
  attempt: number;
  failure: Failure;
}

/** What `gave_up` carries: once, after the last attempt of a piece of work failed. */
export interface GaveUpEvent {
  task: string;
  attempts: number;
  problem: string;
}

/** The events an agent emits, by name. */
export interface AgentEvents {
  run_failed: RunFailedEvent;
  gave_up: GaveUpEvent;
}

/** A tiny synchronous emitter whose handlers can never break the run that emits. */
export class AgentEmitter {
  readonly #handlers = new Map<keyof AgentEvents, Set<(event: never) => void>>();

  on<E extends keyof AgentEvents>(event: E, handler: (payload: AgentEvents[E]) => void): () => void {
    if (event !== "run_failed" && event !== "gave_up") {
      throw new TypeError(`Unknown agent event \`${String(event)}\`; known: run_failed, gave_up.`);
    }
    if (typeof handler !== "function") throw new TypeError("Expected the handler to be a function.");
    let set = this.#handlers.get(event);
    if (set === undefined) {
      set = new Set();
      this.#handlers.set(event, set);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  emit<E extends keyof AgentEvents>(event: E, payload: AgentEvents[E]): void {
    for (const handler of this.#handlers.get(event) ?? []) {
      try {
        const returned = (handler as (payload: AgentEvents[E]) => unknown)(structuredClone(payload));
        // An async handler's rejection must not surface as an unhandled rejection of the run.
        if (returned instanceof Promise) returned.catch(() => undefined);
      } catch {
        // A handler that throws is the app's bug, not the run's: the run goes on.
      }
    }
  }
}
