import { LeashError, checkOptionKeys } from "../../errors/index.js";
import { checkPrice } from "../../models/check-price.js";
import type { ModelUsage, Price } from "../../models/model-client.js";
import { modelCost } from "../../models/model-cost.js";
import type { GateSessionLike } from "../common/gate-session-like.js";

/**
 * A model of `@openai/agents` (the SDK's `Model` interface: `OpenAIResponsesModel`,
 * `OpenAIChatCompletionsModel`, `aisdk(...)`, one of the app's own), as far as `chargedModel` reads it.
 */
export interface AgentsModelLike {
  getResponse(request: never): Promise<{ readonly usage?: unknown }>;
  getStreamedResponse(request: never): AsyncIterable<unknown>;
}

/** Options of {@link chargedModel}. */
export interface ChargedModelOptions {
  /** Money per million tokens: what a call costs against `limits.maxCost`. Without it a call costs 0. */
  price?: Price;
  /** The model's name in the trail (`model_called`); default: none. */
  name?: string;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/** A detail counted over the SDK's per-request records (a record, or a list of them). */
function detail(details: unknown, key: string): number {
  const list = Array.isArray(details) ? (details as unknown[]) : [details];
  let total = 0;
  for (const entry of list) {
    if (typeof entry === "object" && entry !== null) total += count((entry as Record<string, unknown>)[key]);
  }
  return total;
}

/**
 * The SDK's usage of one model call (its `Usage`, or the `usage` of a stream's `response_done`) in
 * leash's terms: cached input tokens are part of the input, reasoning tokens part of the output.
 */
export function agentsUsage(usage: unknown): ModelUsage {
  const fields = (typeof usage === "object" && usage !== null ? usage : {}) as Record<string, unknown>;
  const cacheReadTokens = detail(fields.inputTokensDetails, "cached_tokens");
  const reasoningTokens = detail(fields.outputTokensDetails, "reasoning_tokens");
  return {
    inputTokens: count(fields.inputTokens),
    outputTokens: count(fields.outputTokens),
    ...(cacheReadTokens > 0 ? { cacheReadTokens } : {}),
    ...(reasoningTokens > 0 ? { reasoningTokens } : {}),
  };
}

/**
 * Wraps a model of `@openai/agents` so that every call it makes is charged to a gate's session
 * (`session.charge`): its tokens, its cost at `price`, and the model's name. The SDK keeps usage only
 * as a sum over the run (`result.state.usage`, which a resumed run carries on), and its hooks
 * (`agent_end`, ...) give no call's own usage; the model's answer is the one place each call's usage is
 * seen exactly once, before the tools it asks for run, so a call that takes the run past `maxCost` or
 * `maxTokens` stops the session before them. A streamed call is charged at its `response_done` event.
 *
 * @example
 * const agent = new Agent({ name: "Assistant", model: chargedModel(new OpenAIResponsesModel(client, "gpt-4.1-mini"), session, { price: { input: 0.4, output: 1.6 } }), tools: gateTools(session) });
 */
export function chargedModel<M extends AgentsModelLike>(
  model: M,
  session: GateSessionLike,
  options: ChargedModelOptions = {},
): M {
  if (typeof model !== "object" || model === null || typeof model.getResponse !== "function") {
    throw new LeashError(
      "invalid_option",
      "chargedModel: expected a model of `@openai/agents`, which has `getResponse`.",
    );
  }
  if (typeof session !== "object" || session === null || typeof session.charge !== "function") {
    throw new LeashError("invalid_option", "chargedModel: expected a gate's session, which has `charge`.");
  }
  checkOptionKeys(options, ["price", "name"], "chargedModel options");
  const price = checkPrice(options.price, "`chargedModel` option `price`");
  const { name } = options;
  if (name !== undefined && (typeof name !== "string" || name === "")) {
    throw new LeashError("invalid_option", "Expected `chargedModel` option `name` to be a non-empty string.");
  }
  const charge = (raw: unknown): void => {
    const usage = agentsUsage(raw);
    session.charge({
      tokens: usage.inputTokens + usage.outputTokens,
      cost: price === undefined ? 0 : modelCost(usage, price),
      ...(name === undefined ? {} : { model: name }),
    });
  };
  const getResponse = model.getResponse.bind(model) as (request: unknown) => Promise<{ readonly usage?: unknown }>;
  const getStreamedResponse = model.getStreamedResponse.bind(model) as (request: unknown) => AsyncIterable<unknown>;
  // The model's other members (retry advice, prompt selection) stay the model's own.
  return new Proxy(model, {
    get(target, key, receiver) {
      if (key === "getResponse") {
        return async (request: unknown) => {
          const response = await getResponse(request);
          charge(response?.usage);
          return response;
        };
      }
      if (key === "getStreamedResponse") {
        return async function* (request: unknown) {
          for await (const event of getStreamedResponse(request)) {
            const { type, response } = (event ?? {}) as { type?: unknown; response?: { usage?: unknown } };
            if (type === "response_done") charge(response?.usage);
            yield event;
          }
        };
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}
