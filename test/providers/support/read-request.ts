// Small pieces every provider's neutral reading of a request body uses, and what tests ask of a reading.
import type { Json, JsonObject } from "../../../src/json/index.js";
import type { ReadRequest } from "./harness.js";

/** What a reading takes from the request's top level, before its messages are read. */
export type ReadTopLevel = Omit<ReadRequest, "calls" | "results" | "userTexts" | "providerState">;

/** Whether a value is a JSON object (not an array, not null). */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A request body as an object, `{}` when it is not one, for a reading that never throws.
 *
 * @example
 * const body = bodyObject(server.requests[0] ?? null);
 */
export const bodyObject = (request: Json): JsonObject => (isJsonObject(request) ? request : {});

/**
 * A reading with its top level filled in and no message read yet: the reader pushes the calls,
 * results, user texts and provider state as it walks the messages.
 *
 * @example
 * const read = emptyReading({ model, system, tools, stream, parallelToolCalls, maxOutputTokens });
 */
export function emptyReading(topLevel: ReadTopLevel): ReadRequest {
  return { ...topLevel, calls: [], results: [], userTexts: [], providerState: [] };
}

/**
 * The call ids a request answers with tool results, in order.
 *
 * @example
 * assert.deepEqual(answeredIds(reads()[1]), ["call_1", "call_2"]);
 */
export const answeredIds = (read: ReadRequest | undefined): string[] =>
  (read?.results ?? []).map((result) => result.callId);
