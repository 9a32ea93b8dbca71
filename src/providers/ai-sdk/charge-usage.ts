import { LeashError, checkOptionKeys } from "../../errors/index.js";
import { checkPrice } from "../../models/check-price.js";
import type { Price } from "../../models/model-client.js";
import { modelCost } from "../../models/model-cost.js";
import { aiSdkUsage } from "./ai-sdk-usage.js";
import type { GateSessionLike } from "../common/gate-session-like.js";

/** Options of {@link chargeUsage}. */
export interface ChargeUsageOptions {
  /** Money per million tokens: what a step costs against `limits.maxCost`. Without it a step costs 0. */
  price?: Price;
}

/**
 * One step of `generateText`, `streamText` or a `ToolLoopAgent` as `onStepFinish` gives it (ai 6 and
 * 7): its `usage` (`LanguageModelUsage`: `inputTokens`, `outputTokens` and their details) and the model
 * that made it.
 */
export interface AiSdkStepLike {
  readonly usage: unknown;
  readonly model?: { readonly modelId?: string } | undefined;
  readonly response?: { readonly modelId?: string } | undefined;
}

/** The step's usage in leash's terms: the SDK's flat counts, or a provider's nested ones. */
function usageOfStep(usage: unknown): ReturnType<typeof aiSdkUsage> {
  if (typeof usage !== "object" || usage === null) return aiSdkUsage(usage);
  const { inputTokens, outputTokens, inputTokenDetails, outputTokenDetails } = usage as Record<string, unknown>;
  const input = (inputTokenDetails ?? {}) as Record<string, unknown>;
  const output = (outputTokenDetails ?? {}) as Record<string, unknown>;
  if (typeof inputTokens === "object" || typeof outputTokens === "object") return aiSdkUsage(usage);
  return aiSdkUsage({
    inputTokens: {
      total: inputTokens,
      noCache: input.noCacheTokens,
      cacheRead: input.cacheReadTokens,
      cacheWrite: input.cacheWriteTokens,
    },
    outputTokens: { total: outputTokens, text: output.textTokens, reasoning: output.reasoningTokens },
  });
}

/**
 * An `onStepFinish` callback that charges each step's model call to a gate's session
 * (`session.charge`): its tokens (input and output), its cost at `price`, and the model's id. Every
 * step of `generateText`, `streamText` and a `ToolLoopAgent` carries its own usage in `onStepFinish`;
 * `onFinish`'s `totalUsage` is the sum of the same steps, so charging it as well would count each
 * twice. A step that takes the run to `maxCost` or `maxTokens` ends the session's run `stopped`:
 * every later call is told so, and `stopWhen: gateEnded(session)` ends the SDK's loop there.
 *
 * @example
 * await generateText({ model, tools: gateTools(session), messages, onStepFinish: chargeUsage(session, { price: { input: 0.25, output: 2 } }) });
 */
export function chargeUsage(
  session: GateSessionLike,
  options: ChargeUsageOptions = {},
): (step: AiSdkStepLike) => Promise<void> {
  if (typeof session !== "object" || session === null || typeof session.charge !== "function") {
    throw new LeashError("invalid_option", "chargeUsage: expected a gate's session, which has `charge`.");
  }
  checkOptionKeys(options, ["price"], "chargeUsage options");
  const price = checkPrice(options.price, "`chargeUsage` option `price`");
  // Awaited by the SDK before it checks `stopWhen`, so `gateEnded(session)` sees a charge that ended the run.
  return async (step) => {
    const usage = usageOfStep(step?.usage);
    const model = step?.model?.modelId ?? step?.response?.modelId;
    await session.charge({
      tokens: usage.inputTokens + usage.outputTokens,
      cost: price === undefined ? 0 : modelCost(usage, price),
      ...(typeof model === "string" && model !== "" ? { model } : {}),
    });
  };
}
