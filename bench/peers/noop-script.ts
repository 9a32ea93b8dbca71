import type { LanguageModelV3GenerateResult } from "@ai-sdk/provider";

const USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/**
 * The script both AI SDK rows give `MockLanguageModelV3`: one call of the no-op tool per answer,
 * `steps` times, then the text "done". Each call of the returned function is one answer; a fresh
 * script starts from the first.
 */
export function noopScript(steps: number): () => Promise<LanguageModelV3GenerateResult> {
  let turn = 0;
  return () => {
    const index = turn++;
    if (index < steps) {
      return Promise.resolve({
        content: [{ type: "tool-call", toolCallId: `call_${index}`, toolName: "noop", input: "{}" }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage: USAGE,
        warnings: [],
      });
    }
    return Promise.resolve({
      content: [{ type: "text", text: "done" }],
      finishReason: { unified: "stop", raw: undefined },
      usage: USAGE,
      warnings: [],
    });
  };
}
