import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { RunState } from "../index.js";
import { CliError } from "./cli-error.js";

/** What the CLI needs of the app's agent: `resume`. Duck-typed, since the app may load its own copy of leash. */
export interface ResumableAgent {
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
 * Loads the app's agent from a module that exports `agent`: only the app has its tools' code, so
 * the commands that run tools (`resume`) load it rather than build one. `LEASH_DB` is set to the
 * database before the module loads, so that the module builds its store on the same file:
 *
 * @example
 * // agent.ts of the app
 * export const store = new SqliteStore(process.env.LEASH_DB ?? "leash.db");
 * export const agent = new Agent({ tools, planner, policy, store, audit: store });
 */
export async function loadAgent(path: string, db: string): Promise<LoadedAgent> {
  const file = resolve(path);
  if (!existsSync(file)) throw new CliError("agent_not_found", `There is no agent module at ${path}.`);
  process.env.LEASH_DB = resolve(db);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const hint =
      code === "ERR_UNKNOWN_FILE_EXTENSION"
        ? "; to load TypeScript, run leash under tsx (see leash resume --help)"
        : "";
    throw new CliError(
      "agent_load_failed",
      `Could not load the agent module ${path}: ${(error as Error).message}${hint}`,
    );
  }
  const agent: unknown = await module.agent;
  if (!isResumable(agent)) {
    throw new CliError(
      "invalid_agent_module",
      `${path} exports no \`agent\`: export the app's Agent, built with a SqliteStore on process.env.LEASH_DB.`,
    );
  }
  return { agent, close: closerOf(module) };
}
