import { isDeepStrictEqual } from "node:util";
// What a deleted element of the copy is, told apart from an element set to `undefined`.
const HOLE = Symbol("hole");

// Each copy's way back to its source while nothing of it was read, written or resized.
const pristine = new WeakMap<object, () => { source: readonly unknown[]; length: number } | undefined>();

/**
 * The source of a lazy copy and its length at the copy, while the copy is as made: nothing written,
 * its length unchanged, and every element read still equal to its source (a reader may change what it
 * was handed). Code that only reads may then read the source itself and skip the clones. `undefined`
 * for anything else.
 */
export function untouchedSource<T>(copy: readonly T[]): { source: readonly T[]; length: number } | undefined {
  return pristine.get(copy)?.() as { source: readonly T[]; length: number } | undefined;
}

function asIndex(property: string | symbol): number {
  if (typeof property !== "string") return -1;
  const index = Number(property);
  return Number.isSafeInteger(index) && index >= 0 && String(index) === property ? index : -1;
}

/**
 * A copy of an array whose elements are cloned only when first read, and which costs nothing to make.
 *
 * A planner gets a fresh copy of the run's state at every step; cloning every earlier step each time
 * would make a run of N steps cost O(N²). This copy is a Proxy over an empty array that keeps its own
 * length and only the elements read or written so far, so making it allocates nothing proportional to
 * the source, and each element read costs O(1). `clone` may also map each element to another shape,
 * and `size` take only the first elements. It behaves like an ordinary array (`Array.isArray`,
 * every method, spread, `JSON.stringify`): writes, pushes, deletes and truncations change the copy only.
 */
export function lazyCopy<S, T = S>(source: readonly S[], clone: (item: S) => T, size = source.length): T[] {
  let length = size;
  // Source elements at or past `cut` are gone (the copy was shortened below them).
  let cut = size;
  const local = new Map<number, T | typeof HOLE>();
  const present = (index: number): boolean => {
    if (index >= length) return false;
    const own = local.get(index);
    if (own !== undefined || local.has(index)) return own !== HOLE;
    return index < cut;
  };
  const read = (index: number): T | undefined => {
    if (index >= length) return undefined;
    if (local.has(index)) {
      const own = local.get(index);
      return own === HOLE ? undefined : own;
    }
    if (index >= cut) return undefined;
    const copied = clone(source[index] as S);
    local.set(index, copied);
    return copied;
  };
  const setLength = (value: unknown): boolean => {
    const next = Number(value);
    if (!Number.isSafeInteger(next) || next < 0) throw new RangeError("Invalid array length");
    written = true;
    if (next < length) {
      for (const index of [...local.keys()]) if (index >= next) local.delete(index);
      cut = Math.min(cut, next);
    }
    length = next;
    return true;
  };
  // Whether the copy was written to (an element set or deleted, its length changed).
  let written = false;
  const write = (index: number, value: T): boolean => {
    written = true;
    local.set(index, value);
    if (index >= length) length = index + 1;
    return true;
  };
  const target: T[] = [];
  const made = size;
  const proxy = new Proxy(target, {
    get(object, property, receiver) {
      if (property === "length") return length;
      const index = asIndex(property);
      if (index >= 0) return read(index);
      return Reflect.get(object, property, receiver) as unknown;
    },
    set(object, property, value, receiver) {
      if (property === "length") return setLength(value);
      const index = asIndex(property);
      if (index >= 0) return write(index, value as T);
      return Reflect.set(object, property, value, receiver);
    },
    has(object, property) {
      const index = asIndex(property);
      if (index >= 0) return present(index);
      return Reflect.has(object, property);
    },
    deleteProperty(object, property) {
      const index = asIndex(property);
      if (index < 0) return Reflect.deleteProperty(object, property);
      written = true;
      if (index < length) local.set(index, HOLE);
      return true;
    },
    ownKeys(object) {
      const keys: string[] = [];
      for (let index = 0; index < length; index++) if (present(index)) keys.push(String(index));
      return [...keys, ...Reflect.ownKeys(object).filter((key) => asIndex(key) < 0)];
    },
    getOwnPropertyDescriptor(object, property) {
      if (property === "length") return { value: length, writable: true, enumerable: false, configurable: false };
      const index = asIndex(property);
      if (index < 0) return Reflect.getOwnPropertyDescriptor(object, property);
      if (!present(index)) return undefined;
      return { value: read(index), writable: true, enumerable: true, configurable: true };
    },
    defineProperty(object, property, descriptor) {
      if (property === "length") return "value" in descriptor ? setLength(descriptor.value) : true;
      const index = asIndex(property);
      if (index < 0) return Reflect.defineProperty(object, property, descriptor);
      // Elements are plain data: an accessor or a frozen element is refused, as it is on a sealed copy.
      if (descriptor.get !== undefined || descriptor.set !== undefined || descriptor.configurable === false)
        return false;
      return write(index, descriptor.value as T);
    },
  });
  // Reads hand out clones the reader may have changed since: each must still equal its source.
  pristine.set(proxy, () => {
    if (written || length !== made || cut !== made || target.length !== 0 || Reflect.ownKeys(target).length !== 1)
      return undefined;
    for (const [index, copied] of local) {
      if (copied === HOLE || !isDeepStrictEqual(copied, clone(source[index] as S))) return undefined;
    }
    return { source, length: made };
  });
  return proxy;
}
