import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LeashError, messageOf } from "../errors/index.js";
import { digestOfJson, toJson } from "../json/index.js";
import type { ToolDefinition, ToolSpec } from "../tools/tool.js";
import { Tool, redefineTool } from "../tools/tool.js";
import { callTool } from "./mcp-call.js";
import type { Entry } from "./mcp-call.js";
import type { Connection } from "./mcp-connect.js";
import { Link } from "./mcp-link.js";
import { toolEffect } from "./mcp-effects.js";
import type { ListedTool, Listing } from "./mcp-listing.js";
import { listTools } from "./mcp-listing.js";
import { leashNames } from "./mcp-names.js";
import type { McpToolsOptions } from "./mcp-options.js";
import type { McpTools } from "./mcp-tools-result.js";
import { checkOptions } from "./mcp-options.js";
import { Rereader } from "./mcp-reread.js";
import { compileServerSchema } from "./server-schema.js";
import { onToolsChanged } from "./mcp-subscribers.js";

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

/**
 * A tool whose arguments are validated in linear time (see compileServerSchema); the server's schema
 * is compiled first, so a redefinition it refuses leaves the tool as it was.
 */
function boundedTool(spec: ToolSpec, redefine?: Tool): Tool {
  const validator = compileServerSchema(spec.parameters, `the parameters of tool \`${spec.name}\``);
  const made = redefine ?? new Tool(spec);
  if (redefine !== undefined) redefineTool(redefine, spec);
  (made as { validator: typeof validator }).validator = validator;
  return made;
}

function setReason(target: Record<string, string>, name: string, reason: string): void {
  Object.defineProperty(target, name, { value: reason, enumerable: true, writable: true, configurable: true });
}

/**
 * {@link mcpTools} over connections that `open` makes: `"opened"` when each call of `open` starts a
 * new one (reconnected when lost), `"given"` when it hands back a Client the app connected. `taken`
 * holds the leash names other tool sets use (these tools' names are made unique against them and added).
 */
export async function toolsOver(
  open: () => Promise<Connection>,
  kind: "opened" | "given",
  options: McpToolsOptions,
  taken?: Set<string>,
): Promise<McpTools> {
  const checked = checkOptions(options);
  const connection = await open();
  const { client } = connection;
  let closed = false;
  let listed = false;
  let changedEarly = false;
  const entries = new Map<string, Entry>();
  const rereader = new Rereader<Listing>({
    list: () => listTools(link.client, checked.setupTimeoutMs),
    apply: (result) => apply(result.tools, result.bad),
    fail: (error) => {
      const before = refusedNames();
      // Not knowing the definitions now, no call may run on the old ones.
      for (const entry of entries.values()) entry.refused = `its tools could not be listed again: ${messageOf(error)}`;
      tell([], before);
    },
    isClosed: () => closed,
  });
  const heard = (): void => {
    if (listed) void rereader.request();
    else changedEarly = true;
  };
  // Subscribed before the first listing, so a change announced while it runs is not lost.
  let unsubscribe = onToolsChanged(client, heard);
  const link = new Link(connection, {
    server: checked.server,
    open: kind === "opened" ? open : undefined,
    // A new connection: subscribed again, then its listing applied as a re-read's is.
    connected: async (next: Client) => {
      unsubscribe();
      unsubscribe = onToolsChanged(next, heard);
      const again = await listTools(next, checked.setupTimeoutMs);
      apply(again.tools, again.bad);
    },
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
    taken,
  );
  const skipped: string[] = [];
  const skippedReasons: Record<string, string> = {};
  for (const [name, reason] of listing.bad) {
    if (!wanted(name)) continue;
    skipped.push(name);
    setReason(skippedReasons, name, reason);
  }

  const callSet = { checked, link, rereader, isClosed: () => closed };
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
      execute: (args, context) => callTool(callSet, mcpName, entry, args, context),
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
      await link.close();
    },
  };
}
