// A scripted model of `@openai/agents` (the SDK's `Model` interface) for tests: each call answers with
// the next step of its script, keeps the request it was given, and fails loudly past its end.
import { Usage } from "@openai/agents";
import type { Model, ModelRequest, ModelResponse } from "@openai/agents";

export type ScriptStep = { type: "call"; callId: string; name: string; args: unknown } | { type: "text"; text: string };

export interface ScriptedAgentsModel extends Model {
  readonly requests: ModelRequest[];
}

/** The tool outputs a request sends back to the model, by call id (the SDK's `function_call_result`). */
export function outputsIn(request: ModelRequest): Map<string, string> {
  const outputs = new Map<string, string>();
  const items = Array.isArray(request.input) ? request.input : [];
  for (const item of items as { type?: string; callId?: string; output?: unknown }[]) {
    if (item.type !== "function_call_result" || item.callId === undefined) continue;
    const output = item.output as string | { type?: string; text?: string };
    outputs.set(item.callId, typeof output === "string" ? output : (output.text ?? JSON.stringify(output)));
  }
  return outputs;
}

export function scriptedAgentsModel(
  steps: ScriptStep[][],
  usage = { inputTokens: 0, outputTokens: 0 },
): ScriptedAgentsModel {
  const requests: ModelRequest[] = [];
  let next = 0;
  const respond = (request: ModelRequest): ModelResponse => {
    requests.push(request);
    const step = steps[next];
    if (step === undefined) throw new Error(`the scripted model was asked a call past its script (${next + 1})`);
    next += 1;
    return {
      usage: new Usage({ requests: 1, ...usage, totalTokens: usage.inputTokens + usage.outputTokens }),
      responseId: `response_${next}`,
      output: step.map((item) =>
        item.type === "call"
          ? {
              type: "function_call" as const,
              callId: item.callId,
              name: item.name,
              arguments: JSON.stringify(item.args),
              status: "completed" as const,
            }
          : {
              type: "message" as const,
              role: "assistant" as const,
              status: "completed" as const,
              content: [{ type: "output_text" as const, text: item.text }],
            },
      ),
    };
  };
  return {
    requests,
    getResponse: (request) => Promise.resolve(respond(request)),
    // eslint-disable-next-line require-yield
    getStreamedResponse: async function* () {
      throw new Error("the scripted model does not stream");
    },
  };
}
