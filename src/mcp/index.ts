/**
 * `leash/mcp`: tools from an MCP server (`@modelcontextprotocol/sdk` 1.x as an optional peer).
 * @packageDocumentation
 */
export { mcpTools } from "./mcp-tools-api.js";
export type { McpTools } from "./mcp-tools-result.js";
export type {
  McpClient,
  McpSource,
  McpStdioSource,
  McpHttpSource,
  McpToolsOptions,
  McpToolsChange,
  McpToolOverride,
} from "./mcp-options.js";
export { annotatedEffect } from "./mcp-effects.js";
