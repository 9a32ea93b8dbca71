import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { LeashError, messageOf } from "../errors/index.js";
import type { Json } from "../json/index.js";
import { digestOfJson, toJson } from "../json/index.js";
import type { ToolContext } from "../tools/tool-context.js";
import type { ToolDefinition, ToolSpec } from "../tools/tool.js";
import { Tool, redefineTool } from "../tools/tool.js";
import { compileSchema } from "../tools/schema-validator.js";
import { connect } from "./mcp-connect.js";
import { toolEffect } from "./mcp-effects.js";
import type { ListedTool, Listing } from "./mcp-listing.js";
import { listTools } from "./mcp-listing.js";
import { leashNames } from "./mcp-names.js";
import type { CheckedOptions, McpSource, McpToolsOptions } from "./mcp-options.js";
import { checkOptions } from "./mcp-options.js";
import { safeSchema } from "./mcp-patterns.js";
import { Rereader } from "./mcp-reread.js";
import { onToolsChanged } from "./mcp-subscribers.js";
import { callResult, errorText, malformedResult } from "./mcp-result.js";

/** What {@link mcpTools} returns. */
export interface McpTools {
  /** Leash tools whose calls go to the server, in the order it listed them. */
  tools: Tool[];
  /** The MCP names of the tools left out (a malformed listing, a schema that does not compile). */
  skipped: string[];
  /** Why each tool of `skipped` was left out, by MCP name. */
  skippedReasons: Record<string, string>;
  /** Stops what `mcpTools` started (a child process, an HTTP session); a Client passed in stays open. */
  close(): Promise<void>;
}

/** One tool of the server as leash holds it. */
export interface Entry {
  mcpName: string;
  tool: Tool;
  key: string;
  /** Why calls are refused now (no longer listed, or its new definition did not compile), if they are. */
  refused: string | undefined;
}

function definitionOf(server: string, listed: ListedTool): ToolDefinition {
  return toJson(
    {
      server,
      name: listed.name,
      description: listed.description,
      inputSchema: listed.inputSchema,
      annotations: listed.annotations,
    },
    "an MCP tool definition",
  ) as unknown as ToolDefinition;
}

/** A tool whose arguments are validated without the patterns that could hang the run (see safeSchema). */
function boundedTool(spec: ToolSpec, redefine?: Tool): Tool {
  const made = redefine ?? new Tool(spec);
  if (redefine !== undefined) redefineTool(redefine, spec);
  const { schema, changed } = safeSchema(made.parameters);
  if (changed) {
    const validator = compileSchema(schema, `the parameters of tool \`${made.name}\``);
    (made as { validator: typeof validator }).validator = validator;
  }
  return made;
}

function setReason(target: Record<string, string>, name: string, reason: string): void {
  Object.defineProperty(target, name, { value: reason, enumerable: true, writable: true, configurable: true });
}

/**
 * Tools from an MCP server: lists every page of its tools over stdio, Streamable HTTP or a connected
 * SDK `Client`, and returns leash tools whose calls are `tools/call` with the run's signal, a timeout
 * and the step's idempotency key in `_meta` (`leash/idempotencyKey`). Effects are conservative: an
 * untrusted server's tools (the default) are all `external`; every tool has the scope `mcp:<server>`
 * unless options say otherwise, so the default policy runs none. A malformed tool is left out and
 * named in `skipped`. A failing, hanging or garbled server is a `tool_error` with code `mcp_failed`;
 * one that cannot be reached or listed at the start throws `LeashError` `mcp_unavailable`. On
 * `notifications/tools/list_changed` the tools are read again: a changed tool is redefined in place
 * (an approval asked before is then stale), a tool no longer listed refuses every call, and new tools
 * are not added. Argument `pattern`s that are not provably safe from catastrophic backtracking are
 * not checked by leash (the server checks its own input). On a Client passed in, one notification
 * handler serves every `mcpTools` on it, and a handler the app set before is still called.
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
  let closed = false;
  let listed = false;
  let changedEarly = false;
  const entries = new Map<string, Entry>();
  const rereader = new Rereader<Listing>({
    list: () => listTools(client, checked.setupTimeoutMs),
    apply: (result) => apply(result.tools, result.bad),
    fail: (error) => {
      const before = refusedNames();
      // Not knowing the definitions now, no call may run on the old ones.
      for (const entry of entries.values()) entry.refused = `its tools could not be listed again: ${messageOf(error)}`;
      tell([], before);
    },
    isClosed: () => closed,
  });
  // Subscribed before the first listing, so a change announced while it runs is not lost.
  const unsubscribe = onToolsChanged(client, () => {
    if (listed) void rereader.request();
    else changedEarly = true;
  });
  let listing: Listing;
  try {
    listing = await listTools(client, checked.setupTimeoutMs);
  } catch (error) {
    unsubscribe();
    await connection.close().catch(() => {});
    throw new LeashError(
      "mcp_unavailable",
      `The MCP server \`${checked.server}\` did not list its tools: ${messageOf(error)}`,
      { cause: error },
    );
  }
  const wanted = (name: string) =>
    (checked.include === undefined || checked.include.has(name)) && !checked.exclude.has(name);
  const chosen = listing.tools.filter((item) => wanted(item.name));
  const names = leashNames(
    checked.server,
    chosen.map((item) => item.name),
  );
  const skipped: string[] = [];
  const skippedReasons: Record<string, string> = {};
  for (const [name, reason] of listing.bad) {
    if (!wanted(name)) continue;
    skipped.push(name);
    setReason(skippedReasons, name, reason);
  }

  const specOf = (item: ListedTool, entry: () => Entry | undefined): ToolSpec => {
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
      timeoutMs: Math.min(checked.timeoutMs + 5_000, 2 ** 31 - 1),
      definition,
      execute: (args, context) => call(checked, client, mcpName, entry, () => closed, rereader, args, context),
    };
  };

  for (const item of chosen) {
    let made: Entry | undefined;
    try {
      const built = boundedTool(specOf(item, () => made));
      made = { mcpName: item.name, tool: built, key: digestOfJson(built.describe()), refused: undefined };
      entries.set(item.name, made);
    } catch (error) {
      skipped.push(item.name);
      setReason(skippedReasons, item.name, messageOf(error));
    }
  }

  const refusedNames = (): string[] =>
    [...entries.values()].filter((entry) => entry.refused !== undefined).map((entry) => entry.tool.name);
  /** Tells the caller's `onChange` when a re-read changed a definition or which tools refuse calls. */
  const tell = (redefined: string[], refusedBefore: string[]): void => {
    const refused = refusedNames();
    if (redefined.length === 0 && refused.join("\n") === refusedBefore.join("\n")) return;
    try {
      checked.onChange?.({ redefined, refused });
    } catch {
      // The caller's listener failing must not leave the tools half re-read.
    }
  };

  const apply = (now: ListedTool[], bad: Map<string, string>): void => {
    const byName = new Map(now.map((item) => [item.name, item]));
    const before = refusedNames();
    const redefined: string[] = [];
    for (const entry of entries.values()) {
      const item = byName.get(entry.mcpName);
      if (item === undefined) {
        const why = bad.get(entry.mcpName);
        entry.refused = why === undefined ? "it no longer lists this tool" : `its new listing is not usable: ${why}`;
        continue;
      }
      try {
        const spec = specOf(item, () => entry);
        const key = digestOfJson(new Tool(spec).describe());
        if (key !== entry.key) {
          boundedTool(spec, entry.tool);
          redefined.push(entry.tool.name);
        }
        entry.key = key;
        entry.refused = undefined;
      } catch (error) {
        entry.refused = `its new definition of this tool is not usable: ${messageOf(error)}`;
      }
    }
    tell(redefined, before);
  };
  listed = true;
  if (changedEarly) await rereader.request();

  return {
    tools: [...entries.values()].map((entry) => entry.tool),
    skipped,
    skippedReasons,
    close: async () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      rereader.stop();
      await connection.close();
    },
  };
}

async function call(
  checked: CheckedOptions,
  client: Client,
  mcpName: string,
  entryOf: () => Entry | undefined,
  isClosed: () => boolean,
  rereader: Rereader<Listing>,
  args: Record<string, Json>,
  context: ToolContext,
): Promise<unknown> {
  const { server, timeoutMs } = checked;
  if (isClosed()) throw new LeashError("mcp_failed", `The tools of the MCP server \`${server}\` were closed.`);
  // The last re-read failed: this call asks for one more before it is refused.
  if (rereader.failed) await rereader.request();
  const entry = entryOf();
  if (entry?.refused !== undefined) {
    throw new Error(`The MCP server \`${server}\` refuses \`${mcpName}\`: ${entry.refused}.`);
  }
  let result: Record<string, unknown>;
  try {
    // A lenient result schema: content parts of a kind leash does not know are described, not refused.
    const params = { name: mcpName, arguments: args, _meta: { "leash/idempotencyKey": context.idempotencyKey } };
    result = await client.request({ method: "tools/call", params }, ResultSchema, {
      signal: context.signal,
      timeout: timeoutMs,
    });
  } catch (error) {
    throw new LeashError("mcp_failed", `The MCP server \`${server}\` failed on \`${mcpName}\`: ${messageOf(error)}`, {
      cause: error,
    });
  }
  const malformed = malformedResult(result);
  if (malformed !== undefined) {
    throw new LeashError(
      "mcp_failed",
      `The MCP server \`${server}\` answered \`${mcpName}\` with a malformed result: ${malformed}.`,
    );
  }
  if (result.isError === true) throw new Error(errorText(result));
  return callResult(result);
}
