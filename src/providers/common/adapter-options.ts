import { LeashError, checkOptionKeys } from "../../errors/index.js";
import type { Price } from "../../models/model-client.js";
import { checkPrice } from "../../models/check-price.js";
import { DEFAULT_HAND_BACK_NAME, isToolName } from "./hand-back-tool.js";

/** What every adapter takes besides its client. */
export interface AdapterOptions {
  price?: Price;
  /** Whether the model may ask for several tool calls in one answer (the provider's switch); default: the provider's default. */
  parallelToolCalls?: boolean;
  /** Whether to use the provider's streaming API and call `onText` per text delta. Default false. */
  stream?: boolean;
  /** The name of the hand-back tool offered when the request has an output schema. Default "hand_back". */
  handBackTool?: string;
}

/** Checked adapter options. */
interface CheckedAdapterOptions {
  price: Price | undefined;
  parallelToolCalls: boolean | undefined;
  stream: boolean;
  handBackTool: string;
}

const ADAPTER_OPTIONS = ["price", "parallelToolCalls", "stream", "handBackTool"] as const;

/**
 * Checks what every adapter takes; a bad option, or a key that is neither one of these nor one of
 * the adapter's own (`ownKeys`, e.g. `model`), throws `invalid_option` when the adapter is made.
 */
export function checkAdapterOptions(
  adapter: string,
  options: unknown,
  ownKeys: readonly string[] = [],
): CheckedAdapterOptions {
  const fail = (message: string): never => {
    throw new LeashError("invalid_option", `${adapter}: ${message}`);
  };
  if (options === undefined) options = {};
  if (typeof options !== "object" || options === null) return fail("expected the options to be an object.");
  checkOptionKeys(options, [...ownKeys, ...ADAPTER_OPTIONS], `${adapter}(options)`);
  const { price, parallelToolCalls, stream, handBackTool } = options as Record<string, unknown>;
  if (parallelToolCalls !== undefined && typeof parallelToolCalls !== "boolean")
    fail("expected `parallelToolCalls` to be a boolean.");
  if (stream !== undefined && typeof stream !== "boolean") fail("expected `stream` to be a boolean.");
  if (handBackTool !== undefined && !isToolName(handBackTool))
    fail("expected `handBackTool` to match /^[A-Za-z0-9_-]{1,64}$/.");
  return {
    price: checkPrice(price),
    parallelToolCalls: parallelToolCalls as boolean | undefined,
    stream: stream === true,
    handBackTool: (handBackTool as string | undefined) ?? DEFAULT_HAND_BACK_NAME,
  };
}

/** Checks the model name an adapter is given. */
export function checkModelName(adapter: string, model: unknown): string {
  if (typeof model !== "string" || model.trim() === "")
    throw new LeashError("invalid_option", `${adapter}: expected \`model\` to be a non-empty string.`);
  return model;
}
