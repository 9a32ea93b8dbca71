// Shared pieces of the openaiChat port tests: a tool description and the smallest request.
import type { ModelRequest, ToolDescription } from "../../../src/index.js";

export function describeTool(name: string, description = ""): ToolDescription {
  return {
    name,
    description,
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    effect: "read",
    scopes: [],
    cost: 0,
    idempotent: true,
  };
}

export const ask = (tools: ToolDescription[] = []): ModelRequest => ({
  system: "You help.",
  messages: [{ role: "user", content: "Read a.txt" }],
  tools,
});
