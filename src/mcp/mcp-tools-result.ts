import type { Tool } from "../tools/tool.js";

/** What `mcpTools` returns. */
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
