import { AsyncLocalStorage } from "node:async_hooks";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { CliError, EXIT_OPERATIONAL } from "../cli/cli-error.js";
import { mcpTools } from "../mcp/index.js";
import type { McpClient, McpTools } from "../mcp/index.js";
import { connect } from "../mcp/mcp-connect.js";
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

/** Starts every upstream server of the config, trusted; one that cannot be started stops them all. */
export async function startUpstreams(servers: UpstreamConfig[]): Promise<Upstreams> {
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  const listed = new Map<string, Map<string, McpTool>>();
  const tools: McpTools["tools"] = [];
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
      const connection = await connect(source, name, Math.max(rest.timeoutMs ?? 60_000, 60_000));
      closers.push(() => connection.close());
      const byName = new Map<string, McpTool>();
      listed.set(name, byName);
      const started = await mcpTools(keeping(connection.client, byName), {
        server: name,
        trust: "trusted",
        ...rest,
        onChange: (change) => changed(name, change.refused),
      });
      closers.push(() => started.close());
      tools.push(...started.tools);
    }
  } catch (error) {
    await close();
    throw new CliError("mcp_unavailable", (error as Error).message, EXIT_OPERATIONAL);
  }
  const subscribe = (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  return { tools, listed, close, refused, subscribe };
}
