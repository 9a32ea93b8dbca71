import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { LeashError, messageOf } from "../errors/index.js";
import type { Json } from "../json/index.js";
import { digestOfJson, toJson } from "../json/index.js";
import type { ToolDefinition, ToolSpec } from "../tools/tool.js";
import { Tool, redefineTool } from "../tools/tool.js";
import { connect } from "./mcp-connect.js";
import { toolEffect } from "./mcp-effects.js";
import { leashNames } from "./mcp-names.js";
import type { CheckedOptions, McpSource, McpToolsOptions } from "./mcp-options.js";
import { checkOptions } from "./mcp-options.js";
import { callResult, errorText } from "./mcp-result.js";

/** An MCP tool left out, and why (its input schema did not compile). */
export interface McpSkipped {
  /** The MCP name. */
  name: string;
  reason: string;
}

/** What {@link mcpTools} returns. */
export interface McpTools {
  /** Leash tools whose calls go to the server, in the order it listed them. */
  tools: Tool[];
  skipped: McpSkipped[];
  /** Stops what `mcpTools` started (a child process, an HTTP session); a Client passed in stays open. */
  close(): Promise<void>;
}

/** One tool of the server as leash holds it. */
interface Entry {
  mcpName: string;
  tool: Tool;
  key: string;
  /** Why calls are refused now (no longer listed, or its new definition did not compile), if they are. */
  refused: string | undefined;
}

const MAX_PAGES = 1000;

async function listAll(client: Client, timeoutMs: number): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
    if (seen.has(cursor)) throw new Error(`The server gave the cursor \`${cursor}\` twice.`);
    seen.add(cursor);
  }
  throw new Error(`The server listed more than ${MAX_PAGES} pages of tools.`);
}

function definitionOf(server: string, listed: McpTool): ToolDefinition {
  return toJson(
    {
      server,
      name: listed.name,
      description: listed.description ?? "",
      inputSchema: listed.inputSchema as Json,
      annotations: (listed.annotations ?? {}) as Json,
    },
    "an MCP tool definition",
  ) as unknown as ToolDefinition;
}

/**
 * Tools from an MCP server: lists every page of its tools over stdio, Streamable HTTP or a connected
 * SDK `Client`, and returns leash tools whose calls are `tools/call` with the run's signal and a
 * timeout. Effects are conservative: an untrusted server's tools (the default) are all `external`;
 * every tool has the scope `mcp:<server>` unless options say otherwise, so the default policy runs
 * none. A failing, hanging or garbled server is a `tool_error` with code `mcp_failed`; one that cannot
 * be reached at the start throws `LeashError` `mcp_unavailable`. On `notifications/tools/list_changed`
 * the tools are read again: a changed tool is redefined in place (an approval asked before is then
 * stale), a tool no longer listed refuses every call, and new tools are not added. On a Client passed
 * in, that notification's handler is set here (in place of one the app set) and removed by `close()`.
 *
 * @example
 * const fs = await mcpTools(
 *   { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", dir] },
 *   { server: "fs", trust: "trusted" },
 * );
 * const agent = new Agent({ tools: fs.tools, planner, policy: { grant: ["mcp:fs"] } });
 * // ... run the agent ...
 * await fs.close();
 */
export async function mcpTools(source: McpSource, options: McpToolsOptions): Promise<McpTools> {
  const checked = checkOptions(options);
  const connection = await connect(source, checked.server, checked.setupTimeoutMs);
  const { client } = connection;
  let listed: McpTool[];
  try {
    listed = await listAll(client, checked.setupTimeoutMs);
  } catch (error) {
    await connection.close().catch(() => {});
    throw new LeashError(
      "mcp_unavailable",
      `The MCP server \`${checked.server}\` did not list its tools: ${messageOf(error)}`,
      {
        cause: error,
      },
    );
  }
  let closed = false;
  const chosen = listed.filter(
    (item) => (checked.include === undefined || checked.include.has(item.name)) && !checked.exclude.has(item.name),
  );
  const names = leashNames(
    checked.server,
    chosen.map((item) => item.name),
  );
  const entries = new Map<string, Entry>();
  const skipped: McpSkipped[] = [];

  const specOf = (item: McpTool, entry: () => Entry | undefined): ToolSpec => {
    const definition = definitionOf(checked.server, item);
    const { effect, idempotent } = toolEffect(item.annotations, checked.trusted, checked.overrides[item.name]);
    const mcpName = item.name;
    return {
      name: names.get(mcpName)!,
      description: definition.description,
      parameters: definition.inputSchema as never,
      scopes: checked.overrides[mcpName]?.scopes ?? checked.scopes,
      effect,
      idempotent,
      // A backstop only: the call's own timeout below ends it first, as `mcp_failed`.
      timeoutMs: checked.timeoutMs + 5_000,
      definition,
      execute: (args, context) => call(checked, client, mcpName, entry(), () => closed, args, context.signal),
    };
  };

  for (const item of chosen) {
    let made: Entry | undefined;
    try {
      const built = new Tool(specOf(item, () => made));
      made = { mcpName: item.name, tool: built, key: digestOfJson(built.describe()), refused: undefined };
      entries.set(item.name, made);
    } catch (error) {
      skipped.push({ name: item.name, reason: messageOf(error) });
    }
  }

  let reading: Promise<void> = Promise.resolve();
  const reread = async (): Promise<void> => {
    let now: McpTool[];
    try {
      now = await listAll(client, checked.setupTimeoutMs);
    } catch (error) {
      // Not knowing the definitions now, no call may run on the old ones.
      for (const entry of entries.values()) entry.refused = `its tools could not be listed again: ${messageOf(error)}`;
      return;
    }
    const byName = new Map(now.map((item) => [item.name, item]));
    for (const entry of entries.values()) {
      const item = byName.get(entry.mcpName);
      if (item === undefined) {
        entry.refused = "it no longer lists this tool";
        continue;
      }
      try {
        const spec = specOf(item, () => entry);
        const key = digestOfJson(new Tool(spec).describe());
        if (key !== entry.key) redefineTool(entry.tool, spec);
        entry.key = key;
        entry.refused = undefined;
      } catch (error) {
        entry.refused = `its new definition of this tool is not usable: ${messageOf(error)}`;
      }
    }
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    // One re-read at a time, in order; reread catches its own failures, and the chain never breaks.
    reading = reading.then(reread).catch(() => undefined);
    return Promise.resolve();
  });

  return {
    tools: [...entries.values()].map((entry) => entry.tool),
    skipped,
    close: async () => {
      if (closed) return;
      closed = true;
      client.removeNotificationHandler("notifications/tools/list_changed");
      await connection.close();
    },
  };
}

async function call(
  checked: CheckedOptions,
  client: Client,
  mcpName: string,
  entry: Entry | undefined,
  isClosed: () => boolean,
  args: Record<string, Json>,
  signal: AbortSignal,
): Promise<unknown> {
  const { server, timeoutMs } = checked;
  if (isClosed()) throw new LeashError("mcp_failed", `The tools of the MCP server \`${server}\` were closed.`);
  if (entry?.refused !== undefined) {
    throw new Error(`The MCP server \`${server}\` refuses \`${mcpName}\`: ${entry.refused}.`);
  }
  let result: Record<string, unknown>;
  try {
    result = await client.callTool({ name: mcpName, arguments: args }, undefined, { signal, timeout: timeoutMs });
  } catch (error) {
    throw new LeashError("mcp_failed", `The MCP server \`${server}\` failed on \`${mcpName}\`: ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (result.isError === true) throw new Error(errorText(result));
  return callResult(result);
}
