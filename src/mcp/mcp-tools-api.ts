import { connect, isClient } from "./mcp-connect.js";
import type { McpSource, McpToolsOptions } from "./mcp-options.js";
import { checkOptions } from "./mcp-options.js";
import { toolsOver } from "./mcp-tools.js";
import type { McpTools } from "./mcp-tools-result.js";

// The public face of `leash/mcp`'s tools, apart from how they are made, so that its declarations name
// no type of the MCP SDK (an optional peer an app may not have installed). What it returns is in
// `mcp-tools-result.ts`, which the module that makes the tools imports too.

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
 * handler serves every `mcpTools` on it, and a handler the app set before is still called. A connection
 * leash opened (a command, a URL) that is lost (the server exited, sent a message over the SDK's
 * 10 MiB stdio cap, or no longer knows the HTTP session) fails the call in flight at once
 * (`mcp_failed`); the next call connects again, lists the tools again (redefining changed ones, as
 * on `list_changed`), then runs; while the server cannot be reached, calls fail at once with
 * `mcp_unavailable` and attempts back off (250 ms, doubling up to 30 s). A Client passed in is not
 * reconnected.
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
  const open = () => connect(source, checked.server, checked.setupTimeoutMs);
  return toolsOver(open, isClient(source) ? "given" : "opened", options);
}
