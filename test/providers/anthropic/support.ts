// What the Anthropic adapter tests share: a loopback server per test, a tool, a conversation.
import type { TestContext } from "node:test";
import type { ModelRequest, ToolDescription } from "../../../src/index.js";
import type { AnthropicLoopbackServer as LoopbackServer } from "./harness.js";
import { startAnthropicServer } from "./harness.js";
import { describeTool } from "../support/describe-tool.js";
import { loopbackFor, signal } from "../support/loopback-test.js";

/** Starts a loopback server that is closed when the test ends. */
export const loopback = (context: TestContext): Promise<LoopbackServer> =>
  loopbackFor(context, { start: startAnthropicServer });

/** A read-only app tool, as the core describes it to a model. */
export const readTool: ToolDescription = describeTool("read_page", "Reads a page by its path.", {
  type: "object",
  properties: { path: { type: "string" } },
  required: ["path"],
  additionalProperties: false,
});

/** A request with the task only. */
export function taskRequest(task: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: "You read pages with care.",
    messages: [{ role: "user", content: task }],
    tools: [readTool],
    ...extra,
  };
}

/** The body of the n-th request the server received, as an object. */
export function bodyOf(server: LoopbackServer, index: number): Record<string, unknown> {
  const body = server.requests[index];
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error(`no request ${index}`);
  return body;
}

/** The turns of the n-th request: role and block types of each. */
export function turnsOf(server: LoopbackServer, index: number): { role: string; types: string[] }[] {
  const messages = bodyOf(server, index).messages as { role: string; content: { type: string }[] }[];
  return messages.map((message) => ({ role: message.role, types: message.content.map((block) => block.type) }));
}

/** A fresh abort signal for a call that is not cancelled. */
export const noAbort = (): { signal: AbortSignal } => ({ signal: signal() });
