/**
 * Freezes a value and everything it holds, in place, and returns it: for data leash shares between
 * requests or readers, which none of them may change. A typed array or other buffer view is left as
 * it is (freezing one that holds elements throws), and what is frozen already is not walked again.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
  return value;
}
