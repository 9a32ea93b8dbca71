import { LeashError } from "../../errors/index.js";
import type { GenerateOptions, ModelClient, ModelRequest, ModelResponse, Price } from "../../models/model-client.js";
import type { AdapterOptions } from "../common/adapter-options.js";
import { checkAdapterOptions } from "../common/adapter-options.js";
import { handBackTool } from "../common/hand-back-tool.js";
import { AnswerBuilder } from "./ai-sdk-answer.js";
import { aiSdkPrompt, aiSdkTools } from "./ai-sdk-prompt.js";
import { failureOf, readAiSdkStream } from "./ai-sdk-stream.js";
import type {
  AiSdkCallOptions,
  AiSdkGenerateResult,
  AiSdkLanguageModel,
  AiSdkProviderOptions,
  AiSdkStreamResult,
} from "./language-model.js";

/**
 * Options of {@link aiSdkModel}. `parallelToolCalls` is sent as the provider options the AI SDK's
 * OpenAI (`parallelToolCalls`) and Anthropic (`disableParallelToolUse`) packages read, and as
 * `parallelToolCalls` under the model's own provider name; a provider without such a switch ignores it.
 */
export type AiSdkModelOptions = AdapterOptions;

const ADAPTER = "aiSdkModel";

function checkModel(model: unknown): AiSdkLanguageModel {
  const fail = (problem: string): never => {
    throw new LeashError(
      "invalid_option",
      `${ADAPTER}: expected \`model\` to be an AI SDK language model (specificationVersion "v3" from ai 6 or "v4" from ai 7, e.g. openai.chat("gpt-4.1")); ${problem}.`,
    );
  };
  if (typeof model !== "object" || model === null) return fail(`got ${model === null ? "null" : typeof model}`);
  const { specificationVersion, modelId, provider, doGenerate, doStream } = model as Record<string, unknown>;
  if (specificationVersion !== "v3" && specificationVersion !== "v4")
    fail(`its specificationVersion is ${JSON.stringify(specificationVersion) ?? "missing"}`);
  if (typeof modelId !== "string" || modelId === "") fail("its `modelId` is not a non-empty string");
  if (provider !== undefined && typeof provider !== "string") fail("its `provider` is not a string");
  if (typeof doGenerate !== "function" || typeof doStream !== "function")
    fail("it has no `doGenerate` and `doStream` methods");
  return model as AiSdkLanguageModel;
}

function parallelOptions(provider: string, parallel: boolean): AiSdkProviderOptions {
  const options: AiSdkProviderOptions = {
    openai: { parallelToolCalls: parallel },
    anthropic: { disableParallelToolUse: !parallel },
  };
  const own = provider.split(".")[0] ?? "";
  if (own !== "" && !Object.hasOwn(options, own)) options[own] = { parallelToolCalls: parallel };
  return options;
}

/** Settles with the promise, or rejects with the signal's reason as soon as it aborts (a model may ignore its signal). */
function untilAborted<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  const aborted = (): Error => failureOf(signal.reason, "The model call was aborted.");
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(aborted());
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(promise).then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the provider's own error, passed on unchanged
        reject(error);
      },
    );
  });
}

class AiSdkModelClient implements ModelClient {
  readonly name: string;
  readonly price?: Price;
  readonly #model: AiSdkLanguageModel;
  readonly #options: ReturnType<typeof checkAdapterOptions>;

  constructor(model: AiSdkLanguageModel, options: ReturnType<typeof checkAdapterOptions>) {
    this.#model = model;
    this.#options = options;
    this.name = model.provider ? `${model.provider}:${model.modelId}` : model.modelId;
    if (options.price !== undefined) this.price = options.price;
  }

  async generate(request: ModelRequest, { signal, onText }: GenerateOptions): Promise<ModelResponse> {
    const handBack = handBackTool(request, this.#options.handBackTool);
    const tools = aiSdkTools(request, handBack);
    const callOptions: AiSdkCallOptions = {
      prompt: aiSdkPrompt(request, handBack, handBack?.name ?? this.#options.handBackTool),
      abortSignal: signal,
    };
    if (tools.length > 0) {
      callOptions.tools = tools;
      callOptions.toolChoice = { type: "auto" };
    }
    if (request.maxOutputTokens !== undefined) callOptions.maxOutputTokens = request.maxOutputTokens;
    const { parallelToolCalls } = this.#options;
    if (parallelToolCalls !== undefined)
      callOptions.providerOptions = parallelOptions(this.#model.provider ?? "", parallelToolCalls);
    const answer = new AnswerBuilder(handBack);
    // Both specification versions take these call options; the model's own type says `never` (see AiSdkLanguageModel).
    const options = callOptions as never;
    if (this.#options.stream) {
      const result: AiSdkStreamResult = await untilAborted(this.#model.doStream(options), signal);
      return readAiSdkStream(result.stream.getReader(), answer, { signal, onText });
    }
    const result: AiSdkGenerateResult = await untilAborted(this.#model.doGenerate(options), signal);
    for (const part of result.content) answer.part(part);
    return answer.response(result.usage, result.finishReason);
  }
}

/**
 * A {@link ModelClient} over any AI SDK language model, so every AI SDK provider package (OpenAI,
 * Anthropic, Google, Ollama, OpenAI-compatible local servers) drives a leash agent. The model is
 * called with the AI SDK's own prompt shapes; reasoning parts come back as `providerState` and are
 * sent back verbatim with their provider options; usage is normalized from the AI SDK's. Retries are
 * the provider package's own business: the adapter calls `doGenerate` / `doStream` once.
 *
 * @param model a `LanguageModelV3` (ai 6) or `LanguageModelV4` (ai 7); anything else throws `invalid_option`.
 * @example
 * ```ts
 * import { createOpenAI } from "@ai-sdk/openai";
 * import { aiSdkModel } from "leash/ai-sdk";
 * import { modelPlanner } from "leash";
 *
 * const model = aiSdkModel(createOpenAI().chat("gpt-4.1-mini"), { price: { input: 0.4, output: 1.6 }, stream: true });
 * const planner = modelPlanner({ model });
 * ```
 */
export function aiSdkModel(model: AiSdkLanguageModel, options: AiSdkModelOptions = {}): ModelClient {
  const checkedModel = checkModel(model);
  return new AiSdkModelClient(checkedModel, checkAdapterOptions(ADAPTER, options, []));
}
