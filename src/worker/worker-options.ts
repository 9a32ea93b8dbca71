import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { Agent } from "../agent/agent.js";
import { LeashError, checkOptionKeys } from "../errors/index.js";
import type { RunStore } from "../stores/run-store.js";
import { outboxOf } from "../notify/deliverer.js";
import { checkBaseUrl, checkHttpUrl } from "../notify/notify-urls.js";
import { webhookSecrets } from "../notify/webhook-secret.js";
import type { WebhookSecrets } from "../notify/webhook-secret.js";

/** Where a worker says what it did: an injected logger, so that tests and apps choose. */
export interface WorkerLogger {
  info(message: string, details?: Readonly<Record<string, unknown>>): void;
  warn(message: string, details?: Readonly<Record<string, unknown>>): void;
  error(message: string, details?: Readonly<Record<string, unknown>>): void;
}

/** Options of a `Worker`. */
export interface WorkerOptions {
  /** The agent whose runs are resumed: it has the tools' code. */
  agent: Pick<Agent, "resume">;
  /** The agent's own store, where answers recorded by `store.answer` (e.g. `leash approve`) are found. */
  store: RunStore;
  /** How long to wait between passes that found nothing; default 1000. */
  pollMs?: number;
  /** Stops the worker when aborted, as `stop()` does. */
  signal?: AbortSignal;
  /** Default: warnings and errors to the console, nothing else. */
  logger?: WorkerLogger;
  /** A lease's length on a leasing store, renewed every third of it while a run is in hand; default 30000. */
  leaseMs?: number;
  /** With a leasing store, also resume runs that a crashed worker left running once its lease ran out; default true. */
  recover?: boolean;
  /** The worker's name in leases and logs; default host, process id and a random part. */
  workerId?: string;
  /**
   * Deliver the store's outbox as signed webhooks while the worker runs (see `startNotifier`): `url`
   * is where events are posted, `secret` a `whsec_...` secret (several while one is rotated), `base`
   * the inbox's address that events link to (default `http://127.0.0.1:7777`).
   */
  notify?: WorkerNotifyOptions;
}

/** The webhook options of a worker: `notify: { url, secret, base? }`. */
export interface WorkerNotifyOptions {
  url: string;
  secret: string | string[];
  base?: string;
}

/** Where events link to when `notify.base` is not given: where `leash serve` listens by default. */
export const DEFAULT_INBOX_BASE = "http://127.0.0.1:7777";

/** A worker's options, checked and defaulted. */
export interface ResolvedWorkerOptions {
  agent: Pick<Agent, "resume">;
  store: RunStore;
  pollMs: number;
  signal: AbortSignal | undefined;
  logger: WorkerLogger;
  leaseMs: number;
  recover: boolean;
  workerId: string;
  notify: { url: string; secrets: WebhookSecrets; base: string } | undefined;
}

const consoleLogger: WorkerLogger = {
  info: () => undefined,
  warn: (message, details) => console.warn(`leash worker: ${message}`, details ?? ""),
  error: (message, details) => console.error(`leash worker: ${message}`, details ?? ""),
};

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || (value as number) <= 0)
    throw new LeashError("invalid_option", `Expected \`${name}\` to be a positive integer.`);
  return value as number;
}

/** Checks and defaults a worker's options in one place, before anything runs. */
export function resolveWorkerOptions(options: WorkerOptions): ResolvedWorkerOptions {
  if (typeof options !== "object" || options === null)
    throw new LeashError("invalid_option", "Expected the worker options to be an object.");
  checkOptionKeys(
    options,
    ["agent", "store", "pollMs", "signal", "logger", "leaseMs", "recover", "workerId", "notify"],
    "new Worker(options)",
  );
  if (typeof options.agent?.resume !== "function")
    throw new LeashError("invalid_option", "Expected `agent` to be an Agent.");
  const store = options.store as Partial<RunStore> | undefined;
  if (typeof store?.load !== "function" || typeof store.list !== "function")
    throw new LeashError("invalid_option", "Expected `store` to be the agent's RunStore.");
  const logger = options.logger ?? consoleLogger;
  if (typeof logger.info !== "function" || typeof logger.warn !== "function" || typeof logger.error !== "function") {
    throw new LeashError("invalid_option", "Expected `logger` to have `info`, `warn` and `error`.");
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw new LeashError("invalid_option", "Expected `signal` to be an AbortSignal.");
  if (options.recover !== undefined && typeof options.recover !== "boolean")
    throw new LeashError("invalid_option", "Expected `recover` to be a boolean.");
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  if (typeof workerId !== "string" || workerId.length === 0)
    throw new LeashError("invalid_option", "Expected `workerId` to be a non-empty string.");
  const notify = resolveNotify(options.notify, options.store);
  return {
    agent: options.agent,
    store: options.store,
    pollMs: positiveInteger(options.pollMs, "pollMs", 1000),
    signal: options.signal,
    logger,
    leaseMs: positiveInteger(options.leaseMs, "leaseMs", 30_000),
    recover: options.recover ?? true,
    workerId,
    notify,
  };
}

/** `notify`, checked whole before the worker starts: the keys, the URLs, the secret and the store's outbox. */
function resolveNotify(notify: WorkerNotifyOptions | undefined, store: RunStore): ResolvedWorkerOptions["notify"] {
  if (notify === undefined) return undefined;
  checkOptionKeys(notify, ["url", "secret", "base"], "new Worker(options).notify");
  const url = checkHttpUrl(notify.url, "notify.url").href;
  const base = checkBaseUrl(notify.base ?? DEFAULT_INBOX_BASE, "notify.base");
  const secrets = webhookSecrets(notify.secret);
  outboxOf(store);
  return { url, secrets, base };
}
