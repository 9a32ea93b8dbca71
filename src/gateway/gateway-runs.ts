import { createHash, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { canonicalJson } from "../json/canonical-json.js";
import type { Json } from "../json/json-value.js";
import { isGatewayRunId, OLDER_RUN_PREFIX, RUN_PREFIX } from "../operate/gateway-run-prefix.js";

/** The prefixes of gateway run ids, beside the ids they shape (their home is below the gateway, in `operate/`). */
export { isGatewayRunId, OLDER_RUN_PREFIX, RUN_PREFIX };

const GOAL_PREFIX = "MCP call ";

/** A downstream call: the tool as the gateway lists it, its arguments, and the client that made it. */
export interface GatewayCall {
  tool: string;
  args: Record<string, Json>;
  /**
   * Who made the call, when the transport tells (`--http`: the name its bearer token belongs to):
   * identical calls of different clients are different runs. Absent on stdio (one client, who spawned
   * the gateway).
   */
  client?: string;
}

/**
 * The call's key: a digest of the client (when there is one), the tool and its canonical arguments,
 * the same in every process.
 */
export function callKey(call: GatewayCall): string {
  const named =
    call.client === undefined
      ? { tool: call.tool, args: call.args }
      : { client: call.client, tool: call.tool, args: call.args };
  return createHash("sha256").update(canonicalJson(named)).digest("hex").slice(0, 24);
}

/** This host, as a run id names it: a short digest of its name. */
function hostTag(host: string = hostname()): string {
  return createHash("sha256").update(host).digest("hex").slice(0, 8);
}

/**
 * The run id of a new run of a call: its key, so a repeated call finds it, a random part, then the
 * driving process (host digest and pid), so another gateway can tell a live run from one cut by a
 * crash: `mcp_<key>_<random>_<host>_<pid>`, one word.
 */
export function newRunId(call: GatewayCall): string {
  return `${runPrefixOf(call)}${randomUUID().slice(0, 8)}_${hostTag()}_${process.pid}`;
}

/**
 * Whether the process that started a gateway run may still be driving it: true when the run id names
 * a live process on this host, or a process on another host (which this one cannot see, so it never
 * takes that run over). False for a process of this host that is gone, and for a run id that names
 * no process (runs of an older gateway).
 */
export function driverMayBeAlive(runId: string): boolean {
  const owner = /[-_]([0-9a-f]{8})[._](\d+)$/.exec(runId);
  if (owner === null) return false;
  if (owner[1] !== hostTag()) return true;
  const pid = Number(owner[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The start of the id of every run the gateway starts for this call: `mcp_<callKey>_`. */
export function runPrefixOf(call: GatewayCall): string {
  return `${RUN_PREFIX}${callKey(call)}_`;
}

/** Whether a run is one the gateway started for this call. */
export function isRunOf(runId: string, call: GatewayCall): boolean {
  return runId.startsWith(runPrefixOf(call));
}

/** The longest goal a run takes (leash's limit), in characters. */
const MAX_GOAL_CHARS = 1_000_000;

/**
 * The most characters of canonical JSON a call's arguments may take: they are kept in the run's goal,
 * and a goal is at most a million characters.
 */
export function maxArgsChars(tool: string): number {
  return MAX_GOAL_CHARS - GOAL_PREFIX.length - tool.length - 1;
}

/** The goal of a call's run: readable in `leash runs`, and the planner reads the call back from it. */
export function goalOf(call: GatewayCall): string {
  return `${GOAL_PREFIX}${call.tool} ${canonicalJson(call.args)}`;
}

/** The call a goal written by {@link goalOf} names. */
export function callOfGoal(goal: string): GatewayCall {
  if (!goal.startsWith(GOAL_PREFIX)) throw new Error(`The goal \`${goal.slice(0, 80)}\` is not a gateway call.`);
  const rest = goal.slice(GOAL_PREFIX.length);
  const space = rest.indexOf(" ");
  if (space === -1) throw new Error("The goal of a gateway call has no arguments.");
  return { tool: rest.slice(0, space), args: JSON.parse(rest.slice(space + 1)) as Record<string, Json> };
}

/** An MCP tool result. */
export interface CallResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** An error result with one text. */
export function errorResult(text: string): CallResult {
  return { content: [{ type: "text", text }], isError: true };
}
