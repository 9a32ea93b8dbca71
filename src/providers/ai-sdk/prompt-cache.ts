import { deepFreeze } from "../../json/index.js";
// The AI SDK form of the messages leash built from a run's state, kept per message. Those messages
// are deeply frozen and shared from one request of a run to the next (the prefix of a conversation
// never changes), so their AI SDK form is made once and shared too: a request then costs what its
// new messages cost, and a model that keeps every prompt it was sent (a mock, a logger) keeps one
// copy of the conversation, not one per step. What is shared is frozen as well, so a middleware
// that would change a prompt in place fails loudly instead of changing the next request's.

const forms = new WeakMap<object, { key: string; form: unknown }>();

/**
 * The AI SDK form of a message remembered for `key` (what else the form depends on: the hand-back
 * tool's name), or `undefined`: then the caller makes it and hands it to {@link keepForm}.
 */
export function knownForm<T>(message: object, key: string): T | undefined {
  const known = forms.get(message);
  return known !== undefined && known.key === key ? (known.form as T) : undefined;
}

/**
 * Remembers the AI SDK form of a message when the message is frozen (leash's own, which never
 * changes), frozen too; a message that is not frozen gets its form made afresh each time.
 */
export function keepForm<T>(message: object, key: string, form: T): T {
  if (!Object.isFrozen(message)) return form;
  deepFreeze(form);
  forms.set(message, { key, form });
  return form;
}

const groups = new WeakMap<object, { content: readonly unknown[]; message: unknown }>();

/**
 * The tool message of one answer's results, shared when it is made of the same parts as the last time
 * it began with `first`: the group grows while the calls of an answer are taken, and stands still after.
 */
export function toolGroup<T>(first: object, content: T[]): { role: "tool"; content: T[] } {
  if (!Object.isFrozen(first)) return { role: "tool", content };
  const known = groups.get(first);
  if (known !== undefined && known.content.length === content.length) {
    let same = true;
    for (let index = 0; index < content.length && same; index++) same = known.content[index] === content[index];
    if (same) return known.message as { role: "tool"; content: T[] };
  }
  for (const part of content) if (!Object.isFrozen(part)) return { role: "tool", content };
  const message = deepFreeze({ role: "tool" as const, content });
  groups.set(first, { content, message });
  return message;
}
