// Shared pieces of the openaiChat port tests: the loopback server per test, a tool description and
// the smallest request.
import type { ModelRequest, ToolDescription } from "../../../src/index.js";
import type { LoopbackServer } from "../support/harness.js";
import { openaiChatHarness } from "./chat-harness.js";

export const MODES = [false, true] as const;
export const mode = (stream: boolean): string => (stream ? "streamed" : "not streamed");

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

export const signal = (): AbortSignal => new AbortController().signal;

export async function withServer(run: (server: LoopbackServer) => Promise<void>): Promise<void> {
  const server = await openaiChatHarness.start();
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

export const ask = (tools: ToolDescription[] = []): ModelRequest => ({
  system: "You help.",
  messages: [{ role: "user", content: "Read a.txt" }],
  tools,
});
