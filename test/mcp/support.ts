import { createRequire } from "node:module";
import { mkdtemp, readFile, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Decision } from "../../src/index.js";
import type { Agent, Planner } from "../../src/index.js";
import type { Json } from "../../src/json/index.js";

const require = createRequire(import.meta.url);

/** The stdio command of an MCP reference server from npm: this Node and the package's entry point. */
export function referenceServer(
  name: "server-filesystem" | "server-memory" | "server-everything",
  args: string[] = [],
) {
  return { command: process.execPath, args: [require.resolve(`@modelcontextprotocol/${name}/dist/index.js`), ...args] };
}

/** A fresh folder under the system's temporary one, by its resolved path. */
export async function tempFolder(): Promise<string> {
  return realpath(await mkdtemp(path.join(tmpdir(), "leash-mcp-")));
}

/** A planner that calls each tool of the list in turn, then answers with the last step's result. */
export function callsPlanner(calls: readonly [string, Json][]): Planner {
  return (state) => {
    const next = calls[state.steps.length];
    if (next !== undefined) return Decision.act(next[0], next[1]);
    return Decision.finish(state.steps.at(-1)?.result ?? null);
  };
}

/** Resolves when the agent writes an audit record of this event (for the first time from now). */
export function nextRecord(agent: Agent, event: string): Promise<void> {
  return new Promise((resolve) => {
    agent.on("record", (record) => {
      if (record.event === event) resolve();
    });
  });
}

/** Polls a condition every few milliseconds until it holds or a generous deadline passes. */
export async function eventually(check: () => boolean, what: string, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The process id a fixture wrote to `file`, once the whole of it is there. A file that exists may still
 * be empty (it is created before it is written), and `Number("")` is 0: a signal sent to pid 0 goes to
 * the test's own process group.
 */
export async function pidIn(file: string, deadlineMs = 60_000): Promise<number> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (/^[1-9][0-9]*$/.test(text.trim())) return Number(text.trim());
    if (Date.now() > end) throw new Error(`The fixture never wrote its process id to ${file}.`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Lets every callback already queued run (replies over the in-memory transport are microtasks): no timer. */
export async function settle(rounds = 5): Promise<void> {
  for (let round = 0; round < rounds; round += 1) await new Promise((resolve) => setImmediate(resolve));
}
