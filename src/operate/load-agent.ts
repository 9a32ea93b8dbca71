import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { LeashError } from "../errors/leash-error.js";
import type { RunState } from "../state/run-state.js";
import type { StoreLocation } from "./store-location.js";
import { isTypeScript, registerTypeScript } from "./typescript-loader.js";

/** What the CLI needs of the app's agent: `resume`. Duck-typed, since the app may load its own copy of leash. */
interface ResumableAgent {
  resume(runId: string): Promise<RunState>;
}

/** The app's agent module, loaded: its agent and how to release what it holds open. */
export interface LoadedAgent {
  agent: ResumableAgent;
  /** Calls the module's `close()`, else its `store.close()`, if it exports either. */
  close(): Promise<void>;
}

function isResumable(value: unknown): value is ResumableAgent {
  return typeof value === "object" && value !== null && typeof (value as ResumableAgent).resume === "function";
}

function closerOf(module: Record<string, unknown>): () => Promise<void> {
  const close = module.close;
  if (typeof close === "function") return async () => void (await (close as () => unknown)());
  const store = module.store as { close?: unknown } | undefined;
  if (typeof store === "object" && store !== null && typeof store.close === "function") {
    return async () => void (await (store.close as () => unknown).call(store));
  }
  return () => Promise.resolve();
}

/**
 * Names the store for the app's module, in the environment, before it loads: `LEASH_DB` is the SQLite
 * file (absolute) or the PostgreSQL URL; on PostgreSQL `DATABASE_URL` is that URL too and
 * `LEASH_SCHEMA` the schema.
 */
function announceStore(location: StoreLocation): void {
  if (location.kind === "sqlite") {
    process.env.LEASH_DB = resolve(location.db);
    return;
  }
  process.env.LEASH_DB = location.db;
  process.env.DATABASE_URL = location.db;
  process.env.LEASH_SCHEMA = location.schema;
}

/** The app's agent module, imported: a module in TypeScript through tsx's loader. */
export async function importAgentModule(path: string): Promise<Record<string, unknown>> {
  const file = resolve(path);
  if (!existsSync(file)) throw new LeashError("agent_not_found", `There is no agent module at ${path}.`);
  if (isTypeScript(file)) await registerTypeScript(file, path);
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const hint = /\.c(ts|js)$/i.test(file)
      ? " A .cts or .cjs module is CommonJS, and CommonJS cannot require() leash, an ES module: write the agent module as .ts, .mts or .js (ES module syntax)."
      : "";
    throw new LeashError(
      "agent_load_failed",
      `Could not load the agent module ${path}: ${(error as Error).message}${hint}`,
      { cause: error },
    );
  }
}

/**
 * Loads the app's agent from a module that exports `agent`: only the app has its tools' code, so
 * the commands that run tools (`resume`, `worker`) load it rather than build one. The store is named
 * in the environment before the module loads ({@link announceStore}), so that the module builds its
 * store on the same database. A module in TypeScript (`.ts`, `.mts`, `.cts`) is loaded through tsx.
 *
 * @example
 * // agent.ts of the app
 * export const store = new SqliteStore(process.env.LEASH_DB ?? "leash.db");
 * export const agent = new Agent({ tools, planner, policy, store, audit: store });
 */
export async function loadAgent(path: string, location: StoreLocation): Promise<LoadedAgent> {
  announceStore(location);
  const module = await importAgentModule(path);
  const agent: unknown = await module.agent;
  if (!isResumable(agent)) {
    throw new LeashError(
      "invalid_agent_module",
      `${path} exports no \`agent\`: export the app's Agent, built with a store on process.env.LEASH_DB.`,
    );
  }
  return { agent, close: closerOf(module) };
}
