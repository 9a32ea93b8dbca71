import { LeashError } from "../errors/index.js";
import { digestOfJson, MAX_RECORD_DEPTH, toJson } from "../json/index.js";
import type { Json } from "../json/index.js";
import type { ModelMessage, ModelRequest } from "./model-client.js";
import { messagesDigest, sealMessages } from "./trusted-messages.js";

/** A request checked once, with its digest, that hands out copies safe to give away. */
export interface SealedRequest {
  requestDigest: string;
  /** A request to give a guard or a client: fresh objects, except the frozen, shared messages. */
  copy(): ModelRequest;
}

/**
 * Checks a model request as JSON and seals it: its messages are frozen and shared (those leash built
 * from the run's state are so already and cost nothing to check again), the rest is copied. The
 * digest is that of `{ system, tools, output?, maxOutputTokens?, messages }` in canonical JSON, with
 * `messages` replaced by their count and hash chain ({@link messagesDigest}), so a request's digest
 * costs what its new messages cost, not what the whole conversation does.
 */
export function sealRequest(request: ModelRequest): SealedRequest {
  if (typeof request !== "object" || (request as unknown) === null || Array.isArray(request)) {
    throw new LeashError("not_json", "Expected the model request to be an object.");
  }
  const { messages, ...rest } = request;
  const head = toJson(rest, "the model request", { maxDepth: MAX_RECORD_DEPTH }) as Record<string, Json>;
  const sealed: ModelMessage[] = sealMessages(messages ?? []);
  const requestDigest = digestOfJson({
    ...head,
    messages: { count: sealed.length, chain: messagesDigest(sealed) },
  });
  return {
    requestDigest,
    copy: () => ({ ...(structuredClone(head) as unknown as Omit<ModelRequest, "messages">), messages: sealed.slice() }),
  };
}

/**
 * The digest a `model_called` record gives the request it sent: canonical JSON of the request with
 * its messages replaced by `{ count, chain }`, the chain being the SHA-256 hash chain of the
 * messages' canonical-JSON digests. Anyone holding the request can recompute it.
 *
 * @example assert.equal(record.data.requestDigest, modelRequestDigest(model.requests[0]));
 */
export function modelRequestDigest(request: ModelRequest): string {
  return sealRequest(request).requestDigest;
}
