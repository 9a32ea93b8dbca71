import { LeashError } from "../errors/index.js";
import { canonicalOfJson, MAX_RECORD_DEPTH, sha256Hex, sortKeys, toJson } from "../json/index.js";
import type { Json } from "../json/index.js";
import { copyJson } from "../json/index.js";
import { frozenJson } from "./frozen-json.js";
import type { ModelMessage, ModelRequest } from "./model-client.js";
import { messagesDigest, sealMessages } from "./trusted-messages.js";

/** A request checked once, with its digest, that hands out copies safe to give away. */
interface SealedRequest {
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
  const { head, toolsText } = checkHead(rest);
  const sealed: ModelMessage[] = sealMessages(messages ?? []);
  const requestDigest = sha256Hex(
    canonicalHead({ ...head, messages: { count: sealed.length, chain: messagesDigest(sealed) } }, toolsText),
  );
  return {
    requestDigest,
    copy: () => ({ ...(copyJson(head) as unknown as Omit<ModelRequest, "messages">), messages: sealed.slice() }),
  };
}

/**
 * The request without its messages, checked as JSON and copied. Tool descriptions that are deeply
 * frozen (a toolset's, made once) are checked and canonicalized once and their checked copies
 * reused, so the tools' canonical text comes back too; anything else is checked here.
 */
function checkHead(rest: Omit<ModelRequest, "messages">): { head: Record<string, Json>; toolsText?: string } {
  const { tools, ...others } = rest as { tools?: unknown };
  if (Array.isArray(tools) && Object.getPrototypeOf(tools) === Array.prototype) {
    const json: Json[] = [];
    const texts: string[] = [];
    for (let index = 0; index < tools.length; index++) {
      const known = Object.hasOwn(tools, index) ? frozenJson(tools[index], 2) : undefined;
      if (known === undefined) break;
      json.push(known.json);
      texts.push(known.text);
    }
    if (json.length === tools.length) {
      const checked = toJson(others, "the model request", { maxDepth: MAX_RECORD_DEPTH }) as Record<string, Json>;
      // The keys in the request's order, as a check of the whole request would give them.
      const head: Record<string, Json> = {};
      for (const key of Object.keys(rest)) {
        if (key === "tools") head.tools = json;
        else if (Object.hasOwn(checked, key)) head[key] = checked[key] as Json;
      }
      return { head, toolsText: `[${texts.join(",")}]` };
    }
  }
  return { head: toJson(rest, "the model request", { maxDepth: MAX_RECORD_DEPTH }) as Record<string, Json> };
}

/** The canonical JSON of a checked object, with the text of its `tools` given when known. */
function canonicalHead(head: Record<string, Json>, toolsText: string | undefined): string {
  if (toolsText === undefined) return canonicalOfJson(head);
  const parts = sortKeys(Object.keys(head)).map(
    (key) => `${canonicalOfJson(key)}:${key === "tools" ? toolsText : canonicalOfJson(head[key])}`,
  );
  return `{${parts.join(",")}}`;
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
