import type { AuditRecord } from "../audit/audit-record.js";
import type { Failure } from "../state/run-state.js";
import type { CheckpointFailedEvent } from "./auto-checkpoint.js";

/** What `text` carries: one delta of a model's text while it writes (a streaming adapter). */
export interface TextEvent {
  runId: string;
  /** The index of the step the model is deciding. */
  step: number;
  delta: string;
}

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
  text: TextEvent;
  /** Every audit record, once it is written: a copy of what the sink got. */
  record: AuditRecord;
  /** An automatic checkpoint (the `checkpoint` option) that was not signed or stored; the run went on. */
  checkpoint_failed: CheckpointFailedEvent;
}

const EVENTS: readonly (keyof AgentEvents)[] = ["run_failed", "gave_up", "text", "record", "checkpoint_failed"];

/** A tiny synchronous emitter whose handlers can never break the run that emits. */
export class AgentEmitter {
  readonly #handlers = new Map<keyof AgentEvents, Set<(event: never) => void>>();

  on<E extends keyof AgentEvents>(event: E, handler: (payload: AgentEvents[E]) => void): () => void {
    if (!EVENTS.includes(event)) {
      throw new TypeError(`Unknown agent event \`${String(event)}\`; known: ${EVENTS.join(", ")}.`);
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

  /** Whether anything listens to `event`: an emitter with no handler costs nothing to skip. */
  listens(event: keyof AgentEvents): boolean {
    return (this.#handlers.get(event)?.size ?? 0) > 0;
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
