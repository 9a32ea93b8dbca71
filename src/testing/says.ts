import { checkOptionKeys } from "../errors/index.js";
import type { Json } from "../json/index.js";
import type { ModelResponse, ModelToolCall, ModelUsage } from "../models/model-client.js";

/** Token counts a scripted answer reports; zero unless a step gives them. */
export type ScriptedUsage = ModelUsage;

/** Options of every `says.*` step. */
export interface SaysOptions {
  /** The usage this answer reports, charged by `ctx.callModel` at the model's price. */
  usage?: ScriptedUsage;
  /** Opaque provider state the answer carries (as a thinking block would), sent back on the next request. */
  providerState?: Json;
}

/** Options of a step with a call or a hand-back: its id, else `call_<n>` by its place in the script. */
interface SaysCallOptions extends SaysOptions {
  id?: string;
  /** Text the model writes beside the call. */
  text?: string;
}

/** A call of a script step: its id is optional (the scripted model numbers it). */
type ScriptedToolCall = Omit<ModelToolCall, "id"> & { id?: string };

/** An answer as a script gives it: calls and the hand-back need no ids. */
export type ScriptedResponse = Omit<ModelResponse, "calls" | "usage"> & {
  calls: ScriptedToolCall[];
  usage?: ModelUsage;
};

/**
 * One fixed answer of a scripted model, made by {@link says}. Its label names it in the messages of
 * `assertDone()` and of an exhausted script.
 */
export class ScriptStep {
  readonly response: ScriptedResponse;
  readonly label: string;

  /** @internal Use {@link says} to make a step. */
  constructor(response: ScriptedResponse, label: string) {
    this.response = response;
    this.label = label;
  }
}

// A misspelt option (`usgae`) would leave the step reporting zero tokens without a word.
function answer(
  options: SaysOptions & { text?: string; id?: string },
  step: string,
  known: readonly string[],
): Omit<ScriptedResponse, "calls"> {
  checkOptionKeys(options, known, step);
  const response: Omit<ScriptedResponse, "calls"> = {
    usage: structuredClone(options.usage ?? { inputTokens: 0, outputTokens: 0 }),
  };
  if (options.text !== undefined) response.text = options.text;
  if (options.providerState !== undefined) response.providerState = structuredClone(options.providerState);
  return response;
}

const TEXT_KEYS = ["usage", "providerState"] as const;
const CALL_KEYS = ["usage", "providerState", "id", "text"] as const;
const CALLS_KEYS = ["usage", "providerState", "text"] as const;

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function copyCall(call: ScriptedToolCall): ScriptedToolCall {
  const copy: ScriptedToolCall = { tool: call.tool, args: structuredClone(call.args) };
  if (call.id !== undefined) copy.id = call.id;
  if (call.invalidJson === true) copy.invalidJson = true;
  return copy;
}

/**
 * Builders of a scripted model's answers: a tool call, several at once, an output handed back, or
 * plain text. Each copies what it is given, so changing the object later does not change the script.
 * Calls and hand-backs get the ids `call_1`, `call_2`, ... by their place among every call and
 * hand-back the script returns, unless a step gives one (`{ id }`).
 *
 * @example
 * const model = scriptedModel(
 *   says.tool("WhereIsTheKey", { repair: "r-1" }),
 *   says.handBack({ hours: 1, summary: "Pads." }, { usage: { inputTokens: 900, outputTokens: 40 } }),
 * );
 */
export const says = {
  /** An answer with one tool call. */
  tool(tool: string, args: Json = {}, options: SaysCallOptions = {}): ScriptStep {
    const call = copyCall({ tool, args, ...(options.id === undefined ? {} : { id: options.id }) });
    return new ScriptStep({ ...answer(options, "says.tool", CALL_KEYS), calls: [call] }, `says.tool(${tool})`);
  },
  /** An answer with several tool calls at once, in order. */
  calls(calls: ScriptedToolCall[], options: SaysOptions & { text?: string } = {}): ScriptStep {
    const copied = calls.map(copyCall);
    return new ScriptStep(
      { ...answer(options, "says.calls", CALLS_KEYS), calls: copied },
      `says.calls(${copied.map((call) => call.tool).join(", ")})`,
    );
  },
  /** An answer that hands back the output: the model is done. */
  handBack(output: Json, options: SaysCallOptions = {}): ScriptStep {
    const response: ScriptedResponse = {
      ...answer(options, "says.handBack", CALL_KEYS),
      calls: [],
      handBack: structuredClone(output),
    };
    if (options.id !== undefined) response.handBackId = options.id;
    return new ScriptStep(response, `says.handBack(${shortJson(output)})`);
  },
  /** An answer of plain text, with no call and no output. */
  text(text: string, options: SaysOptions = {}): ScriptStep {
    checkOptionKeys(options, TEXT_KEYS, "says.text");
    return new ScriptStep(
      { ...answer({ ...options, text }, "says.text", [...TEXT_KEYS, "text"]), calls: [] },
      `says.text(${shortJson(text)})`,
    );
  },
};
