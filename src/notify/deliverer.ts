import { LeashError, checkOptionKeys, messageOf } from "../errors/index.js";
import type { NotificationEvent } from "../stores/notification-info.js";
import type { RunStore } from "../stores/run-store.js";
import { checkBaseUrl, checkHttpUrl, runPageUrl } from "./notify-urls.js";
import { RETRY_FOR_MS, retryAt } from "./retry-schedule.js";
import { signWebhook } from "./sign-webhook.js";
import { WebhookSecrets } from "./webhook-secret.js";

/** Where a notifier says what went wrong: an injected logger, as a worker's. */
export interface NotifierLogger {
  info(message: string, details?: Readonly<Record<string, unknown>>): void;
  warn(message: string, details?: Readonly<Record<string, unknown>>): void;
  error(message: string, details?: Readonly<Record<string, unknown>>): void;
}

/** Options of {@link startNotifier}. */
export interface NotifierOptions {
  /** Where events are posted: any http(s) URL, loopback included. */
  url: string;
  /** What signs each attempt: {@link readWebhookSecretFile} or {@link webhookSecrets}. */
  secrets: WebhookSecrets;
  /** The inbox's address: an event's `data.url` is the run's page under it. */
  base: string;
  /** The clock; default `() => new Date()`. */
  now?: () => Date;
  /** The fetch that posts; default the global one. */
  fetch?: typeof globalThis.fetch;
  /** How often the outbox is read for events that are due, in ms; default 500. */
  pollMs?: number;
  /** How long an attempt waits for the receiver's answer, in ms; default 15000. */
  timeoutMs?: number;
  /** How many events are claimed, and posted side by side, at a time; default 8. */
  batch?: number;
  /** Default: warnings and errors on the console. */
  logger?: NotifierLogger;
}

/** A running notifier. */
export interface Notifier {
  /** Stops reading the outbox, waits for the attempts in flight, and resolves once idle. */
  stop(): Promise<void>;
  /** Posts every event due now, one batch after another, and resolves when none is left due. */
  drain(): Promise<void>;
  /** What the start found: whether this was the store's first deliverer, and how many old events it skipped. */
  readonly started: { first: boolean; skipped: number };
}

/** The methods a store needs to keep an outbox for a notifier. */
type Outbox = Required<Pick<RunStore, "startNotifications" | "claimNotifications" | "settleNotification">> &
  Pick<RunStore, "pruneNotifications">;

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_POLL_MS = 500;
const DEFAULT_BATCH = 8;

/** Delivered events are pruned once they are this old: 7 days. */
export const KEEP_DELIVERED_MS = 7 * 24 * 60 * 60_000;

/** How often delivered events are pruned: every hour (and at the start). */
const PRUNE_EVERY_MS = 60 * 60_000;

/** The longest error kept with an event. */
const MAX_ERROR_LENGTH = 200;

const consoleLogger: NotifierLogger = {
  info: () => undefined,
  warn: (message) => console.warn(`leash notify: ${message}`),
  error: (message) => console.error(`leash notify: ${message}`),
};

const OPTION_KEYS = ["url", "secrets", "base", "now", "fetch", "pollMs", "timeoutMs", "batch", "logger"];

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || (value as number) <= 0 || (value as number) > 2 ** 31 - 1)
    throw new LeashError("invalid_option", `Expected \`${name}\` to be a positive integer of milliseconds or items.`);
  return value as number;
}

/**
 * The store as an outbox, or `invalid_option` when it keeps none: a notifier on such a store would
 * have nothing to read, and saying so at the start beats a notifier that never sends.
 */
export function outboxOf(store: unknown): Outbox {
  const candidate = store as Partial<RunStore> | null | undefined;
  if (
    typeof candidate?.startNotifications !== "function" ||
    typeof candidate.claimNotifications !== "function" ||
    typeof candidate.settleNotification !== "function"
  )
    throw new LeashError(
      "invalid_option",
      "This store keeps no outbox: webhooks need a store with notifications (MemoryStore, SqliteStore, PostgresStore).",
    );
  return candidate as Outbox;
}

/** A notifier's options, checked and defaulted before anything starts. */
interface Resolved {
  url: string;
  secrets: WebhookSecrets;
  base: string;
  now: () => Date;
  fetch: typeof globalThis.fetch;
  pollMs: number;
  timeoutMs: number;
  batch: number;
  logger: NotifierLogger;
}

function resolveOptions(options: NotifierOptions): Resolved {
  checkOptionKeys(options, OPTION_KEYS, "startNotifier(store, options)");
  if (options === undefined) throw new LeashError("invalid_option", "Expected the notifier's options.");
  if (!(options.secrets instanceof WebhookSecrets))
    throw new LeashError(
      "invalid_option",
      "Expected `secrets` to be read by readWebhookSecretFile(path) or webhookSecrets(secret).",
    );
  const logger = options.logger ?? consoleLogger;
  if (typeof logger.info !== "function" || typeof logger.warn !== "function" || typeof logger.error !== "function")
    throw new LeashError("invalid_option", "Expected `logger` to have `info`, `warn` and `error`.");
  if (options.now !== undefined && typeof options.now !== "function")
    throw new LeashError("invalid_option", "Expected `now` to be a function that returns a Date.");
  if (options.fetch !== undefined && typeof options.fetch !== "function")
    throw new LeashError("invalid_option", "Expected `fetch` to be a fetch function.");
  return {
    url: checkHttpUrl(options.url, "url").href,
    secrets: options.secrets,
    base: checkBaseUrl(options.base, "base"),
    now: options.now ?? (() => new Date()),
    fetch: options.fetch ?? globalThis.fetch,
    pollMs: positiveInteger(options.pollMs, "pollMs", DEFAULT_POLL_MS),
    timeoutMs: positiveInteger(options.timeoutMs, "timeoutMs", DEFAULT_TIMEOUT_MS),
    batch: positiveInteger(options.batch, "batch", DEFAULT_BATCH),
    logger,
  };
}

/**
 * The body posted for an event: `{ type, timestamp, data }`, `data` being the event's own with the
 * run's inbox page as `url`. The page shows the run to a signed-in person and answers nothing, so a
 * body forwarded to a chat or a mailbox lets no one who reads it approve.
 */
export function webhookBody(event: NotificationEvent, base: string): string {
  return JSON.stringify({
    type: event.type,
    timestamp: event.timestamp,
    data: { ...event.data, url: runPageUrl(base, event.runId) },
  });
}

/** Why an attempt failed, short, without the URL (its path or query may hold a credential). */
function failureOf(error: unknown, url: string, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code;
  // Node's fetch says only "fetch failed"; why is in its cause: a code (ECONNREFUSED), or a message
  // (a port fetch refuses to reach).
  const detail = typeof code === "string" ? code : cause instanceof Error && cause.message !== "" ? cause.message : "";
  const text = `${messageOf(error)}${detail === "" ? "" : ` (${detail})`}`;
  return text.split(url).join("<url>").slice(0, MAX_ERROR_LENGTH);
}

class Deliverer implements Notifier {
  readonly #store: Outbox;
  readonly #options: Resolved;
  readonly started: { first: boolean; skipped: number };
  /** The kinds of failure already logged: each is said once, until a delivery succeeds again. */
  readonly #logged = new Set<string>();
  /** Passes run one at a time, whether the loop or `drain` asks. */
  #chain: Promise<unknown> = Promise.resolve();
  #lastPrune = -Infinity;
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;

  constructor(store: Outbox, options: Resolved, started: { first: boolean; skipped: number }) {
    this.#store = store;
    this.#options = options;
    this.started = started;
  }

  start(): void {
    this.#loop = (async () => {
      while (!this.#stopping) {
        let claimed = 0;
        try {
          claimed = await this.#exclusive(() => this.#pass());
        } catch (error) {
          // The loop never stops on a failure (the database away): said once, tried again next poll.
          this.#logOnce(
            `pass:${kindOf(error)}`,
            "error",
            `Reading the outbox failed; trying again: ${messageOf(error)}`,
          );
        }
        // A full batch says more may be due: the next one at once.
        if (claimed < this.#options.batch) await this.#sleep();
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    await this.#chain;
  }

  async drain(): Promise<void> {
    while ((await this.#exclusive(() => this.#pass())) > 0) {
      // Each batch claimed is settled before the next claim: what failed is due later, not now.
    }
  }

  #exclusive<T>(body: () => Promise<T>): Promise<T> {
    const result = this.#chain.then(body);
    this.#chain = result.catch(() => undefined);
    return result;
  }

  /** One pass: prune when due, then claim a batch of due events and post them side by side. */
  async #pass(): Promise<number> {
    const now = this.#options.now();
    if (now.getTime() - this.#lastPrune >= PRUNE_EVERY_MS && this.#store.pruneNotifications !== undefined) {
      this.#lastPrune = now.getTime();
      await this.#store
        .pruneNotifications({ deliveredBefore: new Date(now.getTime() - KEEP_DELIVERED_MS) })
        .catch((error: unknown) =>
          this.#logOnce(`prune:${kindOf(error)}`, "warn", `Pruning delivered events failed: ${messageOf(error)}`),
        );
    }
    // A claim holds its events for two attempts' time: a deliverer that dies mid-attempt leaves them
    // to another (or its own next start) once the lease runs out, under the same id.
    const events = await this.#store.claimNotifications({
      now,
      limit: this.#options.batch,
      leaseMs: 2 * this.#options.timeoutMs + this.#options.pollMs,
    });
    await Promise.all(events.map((event) => this.#deliver(event)));
    return events.length;
  }

  async #deliver(event: NotificationEvent): Promise<void> {
    const { url, timeoutMs, secrets, base, now } = this.#options;
    const body = webhookBody(event, base);
    const headers = signWebhook(secrets, { id: event.id, at: now(), body });
    let failure: string | null = null;
    try {
      const response = await this.#options.fetch(url, {
        method: "POST",
        headers: { ...headers },
        body,
        // A redirect is a failure, never followed: the receiver is the operator's configured URL,
        // and a signed event must not be carried to wherever a 3xx points.
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.status < 200 || response.status > 299)
        failure =
          response.status >= 300 && response.status < 400
            ? `HTTP ${response.status} (a redirect: not followed)`
            : `HTTP ${response.status}`;
    } catch (error) {
      failure = failureOf(error, url, timeoutMs);
    }
    const at = now();
    try {
      if (failure === null) {
        await this.#store.settleNotification(event.id, { delivered: true, at });
        if ([...this.#logged].some((kind) => kind.startsWith("delivery:")))
          this.#options.logger.info("Events are being delivered again.");
        for (const kind of this.#logged) if (kind.startsWith("delivery:")) this.#logged.delete(kind);
        return;
      }
      const attempts = event.attempts + 1;
      const nextAttemptAt = retryAt({ attempts, now: at });
      await this.#store.settleNotification(event.id, { delivered: false, error: failure, attempts, nextAttemptAt });
      this.#logOnce(
        `delivery:${failure.replace(/\d+ ms$/, "")}`,
        "warn",
        nextAttemptAt === null
          ? `Gave up delivering event ${event.id} (${event.type}) after ${attempts} attempts, ${RETRY_FOR_MS / 3_600_000} hours of retries: ${failure}.`
          : `Delivering event ${event.id} (${event.type}) failed: ${failure}; trying again at ${nextAttemptAt.toISOString()} (further failures of this kind are not logged until a delivery succeeds).`,
      );
    } catch (error) {
      // The lease runs out and the event is claimed again: delivered at least once, under its id.
      this.#logOnce(`settle:${kindOf(error)}`, "error", `Recording an attempt failed: ${messageOf(error)}`);
    }
  }

  #logOnce(kind: string, level: "warn" | "error", message: string): void {
    if (this.#logged.has(kind)) return;
    this.#logged.add(kind);
    this.#options.logger[level](message);
  }

  #sleep(): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined = undefined;
      const done = (): void => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      timer = setTimeout(done, this.#options.pollMs);
      this.#wake = done;
    });
  }
}

function kindOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : error instanceof Error ? error.name : "unknown";
}

/**
 * Starts delivering a store's outbox as signed webhooks (Standard Webhooks): each event posted as
 * `{ type, timestamp, data }` to `url`, retried on a non-2xx answer, a redirect or no answer within
 * 15 s (5 s after the first failure, then doubling to an hour apart, for 24 hours, then `failed`),
 * under the same `webhook-id` across retries and restarts, each attempt signed anew. It runs on its
 * own timer, apart from any run; a failure in it is logged, never thrown into a run. The first
 * deliverer a store sees skips events older than 24 hours, except those of runs still awaiting a
 * person. Refused (`invalid_option`) on bad options or a store that keeps no outbox.
 *
 * @example
 * const notifier = await startNotifier(store, {
 *   url: "https://hooks.example.com/leash",
 *   secrets: readWebhookSecretFile("/etc/leash/webhook-secret"),
 *   base: "https://inbox.example.com",
 * });
 * process.once("SIGTERM", () => void notifier.stop());
 */
export async function startNotifier(store: unknown, options: NotifierOptions): Promise<Notifier> {
  const resolved = resolveOptions(options);
  const outbox = outboxOf(store);
  const started = await outbox.startNotifications({ now: resolved.now(), catchUpMs: RETRY_FOR_MS });
  if (started.first && started.skipped > 0)
    resolved.logger.info(
      `First start on this store: ${started.skipped} event(s) older than 24 hours were marked skipped, not sent.`,
    );
  const deliverer = new Deliverer(outbox, resolved, started);
  deliverer.start();
  return deliverer;
}
