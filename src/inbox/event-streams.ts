import type { StoreWatcher } from "./store-watcher.js";

/**
 * How often an open stream checks that its viewer is still signed in and, if so, gets a comment line
 * (which keeps proxies and browsers from closing it): a signed-out or removed approver's stream ends
 * within this time.
 */
const HEARTBEAT_MS = 5_000;

/** Whether the stream's viewer may still be told of changes (their session or token still signs them in). */
type StillAllowed = () => Promise<boolean>;

const encoder = new TextEncoder();

/**
 * The inbox's server-sent event streams (`GET /events`): an event `change` whenever the run a page
 * shows (or, for the list, any run) changed in the store, as the {@link StoreWatcher} sees it. A
 * `ready` says the watcher has looked at the store, so changes from then on are sent.
 * {@link EventStreams.closeAll} ends every stream when the server shuts down.
 */
export class EventStreams {
  readonly #watcher: StoreWatcher;
  readonly #heartbeatMs: number;
  readonly #open = new Set<() => void>();

  constructor(watcher: StoreWatcher, options: { heartbeatMs?: number } = {}) {
    this.#watcher = watcher;
    this.#heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  }

  /** How many streams are open. */
  get size(): number {
    return this.#open.size;
  }

  /**
   * A stream of the changes of one run (`runId`), or of every run; it ends when `signal` aborts, and
   * when `allowed` (asked before every event and at every heartbeat) says no or fails.
   */
  response(runId: string | undefined, signal: AbortSignal, allowed: StillAllowed): Response {
    let end: () => void = () => undefined;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        let ended = false;
        const send = (text: string): void => {
          if (ended) return;
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            end();
          }
        };
        /** Sends `text` only if the viewer is still signed in; else ends the stream. */
        const sendAllowed = (text: string): void => {
          void allowed().then(
            (yes) => (yes ? send(text) : end()),
            () => end(),
          );
        };
        const subscription = this.#watcher.subscribe((changed) => {
          if (runId !== undefined && !changed.has(runId)) return;
          // JSON keeps a run id on one line, whatever it holds: a line break would end the event early.
          sendAllowed(`event: change\ndata: ${JSON.stringify({ runs: [...changed] })}\n\n`);
        });
        const heartbeat = setInterval(() => sendAllowed(": ping\n\n"), this.#heartbeatMs);
        end = () => {
          if (ended) return;
          ended = true;
          clearInterval(heartbeat);
          subscription.stop();
          this.#open.delete(end);
          signal.removeEventListener("abort", end);
          try {
            controller.close();
          } catch {
            // Already closed by the client going away.
          }
        };
        this.#open.add(end);
        signal.addEventListener("abort", end, { once: true });
        send("retry: 3000\n\n");
        void subscription.ready.then(() => send("event: ready\ndata: {}\n\n"));
        if (signal.aborted) end();
      },
      cancel: () => end(),
    });
    return new Response(body, {
      status: 200,
      headers: { "Content-Type": "text/event-stream; charset=utf-8", Connection: "keep-alive" },
    });
  }

  /** Ends every open stream (the server is closing). */
  closeAll(): void {
    for (const end of [...this.#open]) end();
  }
}
