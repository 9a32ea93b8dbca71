// A scripted AI SDK model (ai 6's MockLanguageModelV3) for the gate tests: each model call takes the
// next answer (tool calls or text) and keeps the prompt it was sent, so a test can read what the
// model was told.
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";

/** One answer of the model: tool calls (id, tool, input) or a text. */
export type ScriptedAnswer = { calls: [id: string, tool: string, input: unknown][] } | { text: string };

/** The usage each scripted answer reports. */
export const STEP_USAGE = { input: 100, output: 20 };

function generated(answer: ScriptedAnswer): LanguageModelV3GenerateResult {
  const usage = {
    inputTokens: { total: STEP_USAGE.input, noCache: STEP_USAGE.input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: STEP_USAGE.output, text: STEP_USAGE.output, reasoning: undefined },
  };
  if ("text" in answer) {
    return {
      content: [{ type: "text", text: answer.text }],
      finishReason: { unified: "stop", raw: "stop" },
      usage,
      warnings: [],
    };
  }
  const content = answer.calls.map(([toolCallId, toolName, input]) => ({
    type: "tool-call" as const,
    toolCallId,
    toolName,
    input: JSON.stringify(input),
  }));
  return { content, finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] };
}

/** A model that gives the answers in order (and fails the call when they run out). */
export function scriptedModel(...answers: ScriptedAnswer[]) {
  const prompts: LanguageModelV3CallOptions["prompt"][] = [];
  const model = new MockLanguageModelV3({
    doGenerate: (options) => {
      prompts.push(options.prompt);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("The scripted model has no answer left.");
      return Promise.resolve(generated(answer));
    },
  });
  return { model, prompts, left: () => answers.length };
}

/** The text of every tool result in a prompt, keyed by tool call id. */
export function toolResultsIn(prompt: LanguageModelV3CallOptions["prompt"] | undefined): Record<string, unknown> {
  const results: Record<string, unknown> = {};
  for (const message of prompt ?? []) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result") {
        const output = part.output as { type: string; value?: unknown; reason?: unknown };
        results[part.toolCallId] =
          output.type === "execution-denied" ? { denied: output.reason ?? null } : output.value;
      }
    }
  }
  return results;
}
