import { deepFreeze } from "../json/index.js";
import { digestOfJson, MAX_RECORD_DEPTH, sha256Hex, toJson } from "../json/index.js";
import type { ModelMessage } from "./model-client.js";

// Messages leash built itself from a run's state: checked JSON, deeply frozen, so they are shared
// between requests instead of being checked and copied again at every model call.
const trusted = new WeakSet<object>();
// The last request's messages per first message, with their hash chain: a run's requests repeat the
// conversation so far and add to it, so the next request reads only what is new. Only trusted
// (frozen) messages are kept, and their chain links: what they hash to can never change.
interface Chain {
  messages: ModelMessage[];
  /** `links[i]` is the chain up to and including `messages[i]`. */
  links: string[];
}
const chains = new WeakMap<object, Chain>();

/** How many leading messages two lists share (the same objects). */
function sharedPrefix(known: readonly ModelMessage[], messages: readonly unknown[]): number {
  const limit = Math.min(known.length, messages.length);
  let same = 0;
  while (same < limit && known[same] === messages[same]) same++;
  return same;
}

function chainOf(messages: readonly unknown[]): Chain | undefined {
  const head = messages[0];
  return typeof head === "object" && head !== null ? chains.get(head) : undefined;
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
  // The messages shared with the last request that began alike are trusted already.
  const known = chainOf(messages);
  const same = known === undefined ? 0 : sharedPrefix(known.messages, messages);
  const sealed = (messages as ModelMessage[]).slice(0, same);
  for (let index = same; index < messages.length; index++) {
    const message: unknown = messages[index];
    if (typeof message === "object" && message !== null && trusted.has(message)) {
      sealed.push(message as ModelMessage);
      continue;
    }
    const copy = toJson(message, `the model request's messages[${index}]`, { maxDepth: MAX_RECORD_DEPTH });
    sealed.push(trustMessage(copy as unknown as ModelMessage));
  }
  return sealed;
}

/**
 * A digest of a request's messages that costs what the new messages cost: a hash chain, each link
 * the SHA-256 of the link before and the canonical-JSON digest of one message, kept for the next
 * request that repeats the same messages first. Equal messages give equal digests wherever they are
 * computed: `chain_0 = ""`, `chain_i = sha256(chain_(i-1) + digestOfJson(message_i))`.
 */
export function messagesDigest(messages: readonly ModelMessage[]): string {
  const head = messages[0];
  if (head === undefined) return "";
  let known = chainOf(messages);
  const same = known === undefined ? 0 : sharedPrefix(known.messages, messages);
  let chain = same === 0 ? "" : (known?.links[same - 1] as string);
  // Only trusted messages are remembered: a message that can still change could not be trusted later.
  const remember = trusted.has(head);
  if (remember) {
    if (known === undefined) {
      known = { messages: [], links: [] };
      chains.set(head, known);
    }
    known.messages.length = same;
    known.links.length = same;
  }
  for (let index = same; index < messages.length; index++) {
    const message = messages[index] as object;
    chain = sha256Hex(chain + digestOfJson(message));
    if (remember && known !== undefined && known.messages.length === index && trusted.has(message)) {
      known.messages.push(message as ModelMessage);
      known.links.push(chain);
    }
  }
  return chain;
}
