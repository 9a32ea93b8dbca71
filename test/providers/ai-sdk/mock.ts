// Small builders for AI SDK results and leash requests, shared by the aiSdkModel tests.
import type {
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";
import type { ToolDescription } from "../../../src/index.js";
import type { ModelMessage, ModelRequest } from "../../../src/models/model-client.js";
import { describeTool } from "../support/describe-tool.js";
import { signal } from "../support/loopback-test.js";

/** A V3 usage in the AI SDK's nested shape. */
export function usageV3(
  input: number,
  output: number,
  extra: { cacheRead?: number; cacheWrite?: number; reasoning?: number } = {},
): LanguageModelV3Usage {
  const cached = (extra.cacheRead ?? 0) + (extra.cacheWrite ?? 0);
  return {
    inputTokens: { total: input, noCache: input - cached, cacheRead: extra.cacheRead, cacheWrite: extra.cacheWrite },
    outputTokens: { total: output, text: output - (extra.reasoning ?? 0), reasoning: extra.reasoning },
  };
}

/** A `doGenerate` result. */
export function generated(
  content: LanguageModelV3Content[],
  finish: "stop" | "tool-calls" = "stop",
  usage: LanguageModelV3Usage = usageV3(10, 5),
): LanguageModelV3GenerateResult {
  return { content, finishReason: { unified: finish, raw: finish }, usage, warnings: [] };
}

/** A `doStream` result that gives the parts, then closes. */
export function streamed(parts: LanguageModelV3StreamPart[]): LanguageModelV3StreamResult {
  return { stream: simulateReadableStream({ chunks: parts, initialDelayInMs: null, chunkDelayInMs: null }) };
}

/** A `finish` stream part. */
export function finishPart(
  finish: "stop" | "tool-calls",
  usage: LanguageModelV3Usage = usageV3(10, 5),
): LanguageModelV3StreamPart {
  return { type: "finish", finishReason: { unified: finish, raw: finish }, usage };
}

/** A tool as a model sees it. */
export function toolDescription(
  name: string,
  properties: Record<string, unknown> = { text: { type: "string" } },
): ToolDescription {
  return describeTool(name, `The ${name} tool.`, {
    type: "object",
    properties: properties as never,
    additionalProperties: false,
  });
}

/** A request with a system text, the task and what follows it. */
export function requestOf(messages: ModelMessage[] = [], extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: "You keep a shelf.",
    messages: [{ role: "user", content: "Label the shelf." }, ...messages],
    tools: [toolDescription("read"), toolDescription("write")],
    ...extra,
  };
}

/** Generate options with a signal that never aborts. */
export function quiet(onText?: (delta: string) => void): { signal: AbortSignal; onText?: (delta: string) => void } {
  return onText === undefined ? { signal: signal() } : { signal: signal(), onText };
}

/** A value as JSON would carry it: `undefined` properties left out, for comparing prompts. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
