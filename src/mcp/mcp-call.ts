import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { LeashError, messageOf } from "../errors/index.js";
import type { Json } from "../json/index.js";
import type { ToolContext } from "../tools/tool-context.js";
import type { Tool } from "../tools/tool.js";
import type { Link } from "./mcp-link.js";
import type { Listing } from "./mcp-listing.js";
import type { CheckedOptions } from "./mcp-options.js";
import type { Rereader } from "./mcp-reread.js";
import { callResult, errorText, malformedResult } from "./mcp-result.js";

/** One tool of the server as leash holds it. */
export interface Entry {
  mcpName: string;
  tool: Tool;
  key: string;
  /** Why calls are refused now (no longer listed, or its new definition did not compile), if they are. */
  refused: string | undefined;
}

/** What a call needs of its tool set. */
interface CallSet {
  checked: CheckedOptions;
  link: Link;
  rereader: Rereader<Listing>;
  isClosed(): boolean;
}

/**
 * One `tools/call`: reconnects first if the connection was lost, refuses a tool the server no longer
 * lists, and fails at once (`mcp_failed`) when the connection is lost during the call.
 */
export async function callTool(
  set: CallSet,
  mcpName: string,
  entryOf: () => Entry | undefined,
  args: Record<string, Json>,
  context: ToolContext,
): Promise<unknown> {
  const { checked, link, rereader } = set;
  const { server, timeoutMs } = checked;
  if (set.isClosed()) throw new LeashError("mcp_failed", `The tools of the MCP server \`${server}\` were closed.`);
  await link.ready();
  // The last re-read failed: this call asks for one more before it is refused.
  if (rereader.failed) await rereader.request();
  const entry = entryOf();
  if (entry?.refused !== undefined) {
    throw new Error(`The MCP server \`${server}\` refuses \`${mcpName}\`: ${entry.refused}.`);
  }
  const lost = link.lost;
  let result: Record<string, unknown>;
  try {
    // A lenient result schema: content parts of a kind leash does not know are described, not refused.
    const params = { name: mcpName, arguments: args, _meta: { "leash/idempotencyKey": context.idempotencyKey } };
    result = await link.client.request({ method: "tools/call", params }, ResultSchema, {
      // A lost connection ends the call at once, not after its timeout.
      signal: AbortSignal.any([context.signal, lost]),
      timeout: timeoutMs,
    });
  } catch (error) {
    if (lost.aborted && !context.signal.aborted) {
      throw new LeashError(
        "mcp_failed",
        `The MCP server \`${server}\` lost its connection during \`${mcpName}\` (${messageOf(lost.reason)}); leash connects again on the next call.`,
        { cause: error },
      );
    }
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
