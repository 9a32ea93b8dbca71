import type { Json } from "../json/index.js";
import type { ModelResponse, ModelToolCall } from "../models/model-client.js";

/** Token counts a scripted answer reports; zero unless a step gives them. */
export interface ScriptedUsage {
  inputTokens: number;
  outputTokens: number;
}

/** Options of every `says.*` step. */
export interface SaysOptions {
  /** The usage this answer reports, charged by `ctx.callModel` at the model's price. */
  usage?: ScriptedUsage;
}

/**
 * One fixed answer of a scripted model, made by {@link says}. Its label names it in the messages of
 * `assertDone()` and of an exhausted script.
 */
export class ScriptStep {
  readonly response: ModelResponse;
  readonly label: string;

  /** @internal Use {@link says} to make a step. */
  constructor(response: ModelResponse, label: string) {
    this.response = response;
    this.label = label;
  }
}

function usageOf(options: SaysOptions): ScriptedUsage {
  return { inputTokens: options.usage?.inputTokens ?? 0, outputTokens: options.usage?.outputTokens ?? 0 };
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * Builders of a scripted model's answers: a tool call, several at once, an output handed back, or
 * plain text. Each copies what it is given, so changing the object later does not change the script.
 *
 * @example
 * const model = scriptedModel(
 *   says.tool("WhereIsTheKey", { repair: "r-1" }),
 *   says.handBack({ hours: 1, summary: "Pads." }, { usage: { inputTokens: 900, outputTokens: 40 } }),
 * );
 */
export const says = {
  /** An answer with one tool call. */
  tool(tool: string, args: Json = {}, options: SaysOptions = {}): ScriptStep {
    return new ScriptStep(
      { calls: [{ tool, args: structuredClone(args) }], usage: usageOf(options) },
      `says.tool(${tool})`,
    );
  },
  /** An answer with several tool calls at once, in order. */
  calls(calls: ModelToolCall[], options: SaysOptions = {}): ScriptStep {
    const copied = calls.map((call) => ({ tool: call.tool, args: structuredClone(call.args) }));
    return new ScriptStep(
      { calls: copied, usage: usageOf(options) },
      `says.calls(${copied.map((call) => call.tool).join(", ")})`,
    );
  },
  /** An answer that hands back the output: the model is done. */
  handBack(output: Json, options: SaysOptions = {}): ScriptStep {
    return new ScriptStep(
      { calls: [], handBack: structuredClone(output), usage: usageOf(options) },
      `says.handBack(${shortJson(output)})`,
    );
  },
  /** An answer of plain text, with no call and no output. */
  text(text: string, options: SaysOptions = {}): ScriptStep {
    return new ScriptStep({ calls: [], text, usage: usageOf(options) }, `says.text(${shortJson(text)})`);
  },
};
