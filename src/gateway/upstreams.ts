import { AsyncLocalStorage } from "node:async_hooks";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LeashError } from "../errors/leash-error.js";
import type { McpClient, McpTools } from "../mcp/index.js";
import { connect } from "../mcp/mcp-connect.js";
import { baseName } from "../mcp/mcp-names.js";
import { toolsOver } from "../mcp/mcp-tools.js";
import type { UpstreamConfig } from "./gateway-config.js";

/** Where the upstream's own answer to a call lands, for the call being answered in this async context. */
export interface RawSlot {
  result?: Record<string, unknown>;
}

/**
 * The upstream answer of the call running in the current async context: a downstream call sets a slot
 * around its run, and the upstream client fills it, so the client gets the server's own `content` and
 * `structuredContent`, not leash's reading of them.
 */
export const rawResults = new AsyncLocalStorage<RawSlot>();

/** Which upstream tools refuse calls now, and a way to hear when that or a definition changes. */
export interface ToolChanges {
  /** The leash names of the tools an upstream no longer lists (or no longer lists usably). */
  readonly refused: ReadonlySet<string>;
  /** Calls `listener` after each re-read that changed a tool; returns how to stop. */
  subscribe(listener: () => void): () => void;
}

/** The upstream servers, started: their tools, their listings by server and MCP name, and how to stop. */
export interface Upstreams extends ToolChanges {
  tools: McpTools["tools"];
  /** Each server's tools as it listed them, by MCP name: where an `outputSchema` is found. */
  listed: Map<string, Map<string, McpTool>>;
  close(): Promise<void>;
}

/** A client that passes everything on, keeping what `tools/list` and `tools/call` answer. */
function keeping(client: McpClient, listed: Map<string, McpTool>): McpClient {
  return {
    listTools: async (params, options) => {
      const page = await client.listTools(params, options);
      for (const item of page.tools as McpTool[]) listed.set(item.name, item);
      return page;
    },
    callTool: async (params, schema, options) => {
      const result = await client.callTool(params, schema, options);
      const slot = rawResults.getStore();
      if (slot !== undefined) slot.result = result;
      return result;
    },
    // leash/mcp lists and calls through `request` (a lenient read of each answer): the same keeping.
    request: async (request, schema, options) => {
      const result = await client.request(request, schema, options);
      if (typeof result === "object" && result !== null) {
        const answer = result as Record<string, unknown>;
        if (request.method === "tools/list" && Array.isArray(answer.tools)) {
          for (const item of answer.tools as McpTool[]) if (typeof item?.name === "string") listed.set(item.name, item);
        } else if (request.method === "tools/call") {
          const slot = rawResults.getStore();
          if (slot !== undefined) slot.result = answer;
        }
      }
      return result;
    },
    setNotificationHandler: (schema, handler) => client.setNotificationHandler(schema, handler),
    removeNotificationHandler: (method) => client.removeNotificationHandler(method),
  };
}

/** Says on stderr which tools of a server are left out at the start, and which were renamed to stay unique. */
function tellStart(say: (line: string) => void, name: string, started: McpTools, owners: Map<string, string>): void {
  for (const tool of started.skipped)
    say(`servers.${name}: left out the tool \`${tool}\`: ${started.skippedReasons[tool] ?? "not usable"}`);
  for (const tool of started.tools) {
    const mcpName = String((tool.definition as Record<string, unknown> | undefined)?.name);
    const base = baseName(name, mcpName);
    const owner = owners.get(base);
    if (tool.name !== base && owner !== undefined && !owner.startsWith(`servers.${name} `))
      say(
        `${owner} and servers.${name} tool \`${mcpName}\` both make the name \`${base}\`: the second is offered as \`${tool.name}\`.`,
      );
    owners.set(tool.name, `servers.${name} tool \`${mcpName}\``);
  }
}

/**
 * Starts every upstream server of the config (trusted unless its `trust` says otherwise); one that
 * cannot be started stops them all. Each is connected again when its connection is lost (see
 * `mcpTools`). Tool names are unique across servers (a numbered suffix, in config order); the
 * tools left out or renamed are told to `say`.
 */
export async function startUpstreams(
  servers: UpstreamConfig[],
  say: (line: string) => void = () => undefined,
): Promise<Upstreams> {
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  const listed = new Map<string, Map<string, McpTool>>();
  const tools: McpTools["tools"] = [];
  const taken = new Set<string>();
  const owners = new Map<string, string>();
  const refusedBy = new Map<string, string[]>();
  const refused = new Set<string>();
  const listeners = new Set<() => void>();
  const changed = (server: string, now: string[]): void => {
    refusedBy.set(server, now);
    refused.clear();
    for (const names of refusedBy.values()) for (const name of names) refused.add(name);
    for (const listener of [...listeners]) listener();
  };
  try {
    for (const server of servers) {
      const { name, source, ...rest } = server;
      const byName = new Map<string, McpTool>();
      listed.set(name, byName);
      // Each connection (the first, and each one after a loss) keeps what the server lists and answers.
      const open = async () => {
        const connection = await connect(source, name, Math.max(rest.timeoutMs ?? 60_000, 60_000));
        return { ...connection, client: keeping(connection.client, byName) as unknown as Client };
      };
      const started = await toolsOver(
        open,
        "opened",
        { server: name, trust: "trusted", ...rest, onChange: (change) => changed(name, change.refused) },
        taken,
      );
      closers.push(() => started.close());
      tools.push(...started.tools);
      tellStart(say, name, started, owners);
    }
  } catch (error) {
    await close();
    throw new LeashError("mcp_unavailable", (error as Error).message, { cause: error });
  }
  const subscribe = (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  return { tools, listed, close, refused, subscribe };
}
