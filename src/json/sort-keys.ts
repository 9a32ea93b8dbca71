/** Up to this many keys are sorted by insertion, in place; longer lists by `Array.prototype.sort`. */
const INSERTION_SORT_LIMIT = 16;

/**
 * Sorts an object's keys in place into RFC 8785's order (ascending UTF-16 code units, the order of
 * `<` on strings and of the default sort) and returns them. The default sort allocates work space
 * of its own at every call, which for the few keys of the objects leash writes at every step
 * weighed more than the rest of writing their canonical form; a short list is sorted by insertion.
 */
export function sortKeys(keys: string[]): string[] {
  const length = keys.length;
  if (length > INSERTION_SORT_LIMIT) return keys.sort();
  for (let index = 1; index < length; index++) {
    const key = keys[index] as string;
    let at = index - 1;
    while (at >= 0 && (keys[at] as string) > key) {
      keys[at + 1] = keys[at] as string;
      at--;
    }
    keys[at + 1] = key;
  }
  return keys;
}
