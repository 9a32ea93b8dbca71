import { LeashError, checkOptionKeys } from "../errors/index.js";
import type { GenerateOptions, ModelClient, ModelRequest, ModelResponse, Price } from "../models/model-client.js";
import type { ScriptedResponse } from "./says.js";
import { ScriptStep } from "./says.js";

/** Options of {@link scriptedModel}, given as its optional first argument. */
export interface ScriptedModelOptions {
  /** The model's name in `model_called` records. Default "scripted". */
  name?: string;
  /** Money per million tokens, charged by `ctx.callModel` unless it is given a price. */
  price?: Price;
}

/**
 * A step that answers from the request itself, for tests whose answer depends on what was asked or
 * on how often: it gets a copy of the request and the 0-based number of the call.
 */
export type ScriptFunction = (request: ModelRequest, call: number) => ScriptedResponse | Promise<ScriptedResponse>;

/** One step of a script: a fixed answer made by `says`, or a function. */
export type ScriptedStep = ScriptStep | ScriptFunction;

function checkOptions(options: ScriptedModelOptions): { name: string; price: Price | undefined } {
  checkOptionKeys(options, ["name", "price"], "scriptedModel(options, ...steps)");
  const name = options.name ?? "scripted";
  if (typeof name !== "string" || name === "")
    throw new LeashError("invalid_option", "Expected `name` to be a non-empty string.");
  // A test may script a price no real model has: any finite amount from 0 is taken here, and
  // `ctx.callModel` refuses what it cannot charge.
  const { price } = options;
  if (price === undefined) return { name, price: undefined };
  const ok = (value: unknown): boolean => typeof value === "number" && Number.isFinite(value) && value >= 0;
  const fields = typeof price === "object" && price !== null ? price : undefined;
  if (
    fields === undefined ||
    !ok(fields.input) ||
    !ok(fields.output) ||
    (fields.cacheRead !== undefined && !ok(fields.cacheRead)) ||
    (fields.cacheWrite !== undefined && !ok(fields.cacheWrite))
  ) {
    throw new LeashError(
      "invalid_option",
      "Expected `price` to be { input, output, cacheRead?, cacheWrite? }: money per million tokens, finite and >= 0.",
    );
  }
  return { name, price: { ...fields } };
}

function labelOf(step: ScriptedStep, index: number): string {
  return `${index + 1}. ${step instanceof ScriptStep ? step.label : "a function"}`;
}

/**
 * A {@link ModelClient} that answers each `generate` call with the next step of its script, for
 * tests. Built by {@link scriptedModel}.
 */
export class ScriptedModel implements ModelClient {
  readonly name: string;
  readonly price?: Price;
  /** A deep copy of every request it was sent, in order (one past the end of the script included). */
  readonly requests: ModelRequest[] = [];
  readonly #steps: readonly ScriptedStep[];
  #next = 0;
  /** How many calls and hand-backs the script has returned: the next unnamed one is `call_<n + 1>`. */
  #numbered = 0;

  /** @internal Use {@link scriptedModel}. */
  constructor(options: ScriptedModelOptions, steps: readonly ScriptedStep[]) {
    const checked = checkOptions(options);
    this.name = checked.name;
    if (checked.price !== undefined) this.price = checked.price;
    steps.forEach((step, index) => {
      if (!(step instanceof ScriptStep) && typeof step !== "function") {
        throw new LeashError(
          "invalid_option",
          `Expected step ${index + 1} of the script to be made by \`says\` or to be a function (request) => ModelResponse.`,
        );
      }
    });
    this.#steps = [...steps];
  }

  /** How many steps of the script have not been asked for yet. */
  get remaining(): number {
    return this.#steps.length - this.#next;
  }

  /**
   * Answers with the next step of the script. Asked past its end it throws `script_exhausted`,
   * naming how many steps the script had: a test must never pass on an answer nobody wrote.
   */
  async generate(request: ModelRequest, options: Partial<GenerateOptions> = {}): Promise<ModelResponse> {
    this.requests.push(structuredClone(request));
    options.signal?.throwIfAborted();
    const index = this.#next;
    const step = this.#steps[index];
    if (step === undefined) {
      throw new LeashError(
        "script_exhausted",
        `Scripted model \`${this.name}\` was asked ${index + 1} times, but its script has ${this.#steps.length} step${this.#steps.length === 1 ? "" : "s"}.`,
        { details: { model: this.name, steps: this.#steps.length } },
      );
    }
    this.#next += 1;
    const scripted = step instanceof ScriptStep ? step.response : await step(structuredClone(request), index);
    return this.#numberIds(structuredClone(scripted));
  }

  /** Gives every call and hand-back without an id the next `call_<n>`; usage defaults to zero. */
  #numberIds(scripted: ScriptedResponse): ModelResponse {
    const { calls, usage, ...rest } = scripted;
    const response = { ...rest, usage: usage ?? { inputTokens: 0, outputTokens: 0 } } as ModelResponse;
    // A function step may answer anything; what is not an array of calls is left for callModel to refuse.
    if (!Array.isArray(calls)) return { ...response, calls };
    response.calls = calls.map((call) => {
      this.#numbered += 1;
      return { ...call, id: call.id ?? `call_${this.#numbered}` };
    });
    if (response.handBack !== undefined) {
      this.#numbered += 1;
      response.handBackId ??= `call_${this.#numbered}`;
    }
    return response;
  }

  /** Throws `script_unfinished`, listing the steps left, unless every step of the script was asked for. */
  assertDone(): void {
    if (this.remaining === 0) return;
    const left = this.#steps.slice(this.#next).map((step, offset) => labelOf(step, this.#next + offset));
    throw new LeashError(
      "script_unfinished",
      `Scripted model \`${this.name}\` has ${left.length} step${left.length === 1 ? "" : "s"} left: ${left.join("; ")}.`,
      { details: { model: this.name, left } },
    );
  }
}

/**
 * A model that answers from a script, for tests: each `generate` call gets the next step. An
 * optional first argument gives the model's `name` (default "scripted") and `price`.
 *
 * @example
 * const model = scriptedModel({ name: "Everyday", price: { input: 1, output: 5 } },
 *   says.tool("WhereIsTheKey", { repair: "r-1" }),
 *   says.handBack({ hours: 1, summary: "Pads." }),
 * );
 * const agent = new Agent({ tools, planner: modelPlanner({ model }) });
 * // ... run it, then:
 * model.assertDone();
 */
export function scriptedModel(...steps: ScriptedStep[]): ScriptedModel;
export function scriptedModel(options: ScriptedModelOptions, ...steps: ScriptedStep[]): ScriptedModel;
export function scriptedModel(...items: (ScriptedModelOptions | ScriptedStep)[]): ScriptedModel {
  const [first, ...rest] = items;
  // A step is made by `says` or is a function, so any other object in first place is the options.
  if (typeof first === "object" && first !== null && !(first instanceof ScriptStep))
    return new ScriptedModel(first, rest as ScriptedStep[]);
  return new ScriptedModel({}, items as ScriptedStep[]);
}
