// The smallest request of the openaiChat port tests.
import type { ModelRequest, ToolDescription } from "../../../src/index.js";

export const ask = (tools: ToolDescription[] = []): ModelRequest => ({
  system: "You help.",
  messages: [{ role: "user", content: "Read a.txt" }],
  tools,
});
