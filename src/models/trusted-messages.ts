import { digestOfJson, MAX_RECORD_DEPTH, sha256Hex, toJson } from "../json/index.js";
import type { ModelMessage } from "./model-client.js";

// Messages leash built itself from a run's state: checked JSON, deeply frozen, so they are shared
// between requests instead of being checked and copied again at every model call.
const trusted = new WeakSet<object>();
// Each message's place in a request's hash chain: the message before it and the chain up to it.
const links = new WeakMap<object, { before: object | null; chain: string }>();

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** Marks a message leash built from checked JSON as trusted, freezing it: it can be shared as it is. */
export function trustMessage<M extends ModelMessage>(message: M): M {
  deepFreeze(message);
  trusted.add(message);
  return message;
}

/**
 * A request's messages made safe to share: trusted messages as they are, anything else (a planner's
 * own messages) checked as JSON, copied and frozen. The array itself is fresh.
 */
export function sealMessages(messages: unknown): ModelMessage[] {
  if (!Array.isArray(messages)) {
    return toJson(messages, "the model request's messages", {
      maxDepth: MAX_RECORD_DEPTH,
    }) as unknown as ModelMessage[];
  }
  return messages.map((message: unknown, index) => {
    if (typeof message === "object" && message !== null && trusted.has(message)) return message as ModelMessage;
    const copy = toJson(message, `the model request's messages[${index}]`, { maxDepth: MAX_RECORD_DEPTH });
    return trustMessage(copy as unknown as ModelMessage);
  });
}

/**
 * A digest of a request's messages that costs what the new messages cost: a hash chain, each link
 * the SHA-256 of the link before and the canonical-JSON digest of one message, kept per message for
 * the next request that repeats the same prefix. Equal messages give equal digests wherever they are
 * computed: `chain_0 = ""`, `chain_i = sha256(chain_(i-1) + digestOfJson(message_i))`.
 */
export function messagesDigest(messages: readonly ModelMessage[]): string {
  // The longest prefix whose links are known and still stand where they were made.
  let known = 0;
  let chain = "";
  for (let index = messages.length - 1; index >= 0; index--) {
    const link = links.get(messages[index] as object);
    if (link === undefined || link.before !== (index === 0 ? null : messages[index - 1])) continue;
    // One candidate only, checked once: the newest known link, if everything before it stands.
    if (prefixStands(messages, index)) {
      known = index + 1;
      chain = link.chain;
    }
    break;
  }
  for (let index = known; index < messages.length; index++) {
    const message = messages[index] as object;
    chain = sha256Hex(chain + digestOfJson(message));
    // Only frozen messages are remembered: a message that can still change could not be trusted later.
    if (trusted.has(message))
      links.set(message, { before: index === 0 ? null : (messages[index - 1] as object), chain });
  }
  return chain;
}

/** Whether every link before `index` still points at the message before it. */
function prefixStands(messages: readonly ModelMessage[], index: number): boolean {
  for (let at = index; at > 0; at--) {
    const link = links.get(messages[at - 1] as object);
    if (link === undefined || link.before !== (at === 1 ? null : messages[at - 2])) return false;
  }
  return true;
}
