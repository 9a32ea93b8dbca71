// The AI SDK form of the messages leash built from a run's state, kept per message. Those messages
// are deeply frozen and shared from one request of a run to the next (the prefix of a conversation
// never changes), so their AI SDK form is made once and shared too: a request then costs what its
// new messages cost, and a model that keeps every prompt it was sent (a mock, a logger) keeps one
// copy of the conversation, not one per step. What is shared is frozen as well, so a middleware
// that would change a prompt in place fails loudly instead of changing the next request's.

const forms = new WeakMap<object, { key: string; form: unknown }>();

function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
  return value;
}

/**
 * The AI SDK form of a message: made by `make` and remembered when the message is frozen (leash's
 * own, which never changes), made afresh when it is not. `key` names what else the form depends on
 * (the hand-back tool's name), so a form made for another key is made again.
 */
export function formOf<T>(message: object, key: string, make: () => T): T {
  if (!Object.isFrozen(message)) return make();
  const known = forms.get(message);
  if (known !== undefined && known.key === key) return known.form as T;
  const form = deepFreeze(make());
  forms.set(message, { key, form });
  return form;
}

const groups = new WeakMap<object, { content: readonly unknown[]; message: unknown }>();

/**
 * One message made of parts (the tool results of one answer), shared when it is made of the same
 * parts as the last time it began with `first`: the group grows while the calls of an answer are
 * taken, and stands still after.
 */
export function groupOf<T, M>(first: object, content: T[], make: (content: T[]) => M): M {
  if (!Object.isFrozen(first)) return make(content);
  const known = groups.get(first);
  if (
    known !== undefined &&
    known.content.length === content.length &&
    known.content.every((part, index) => part === content[index])
  )
    return known.message as M;
  if (!content.every((part) => Object.isFrozen(part))) return make(content);
  const message = deepFreeze(make(content));
  groups.set(first, { content, message });
  return message;
}
