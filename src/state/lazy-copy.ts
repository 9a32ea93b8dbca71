// What a deleted element of the copy is, told apart from an element set to `undefined`.
const HOLE = Symbol("hole");

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
 * the source, and each element read costs O(1). It behaves like an ordinary array (`Array.isArray`,
 * every method, spread, `JSON.stringify`): writes, pushes, deletes and truncations change the copy only.
 */
export function lazyCopy<T>(source: readonly T[], clone: (item: T) => T): T[] {
  let length = source.length;
  // Source elements at or past `cut` are gone (the copy was shortened below them).
  let cut = source.length;
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
    const copied = clone(source[index] as T);
    local.set(index, copied);
    return copied;
  };
  const setLength = (value: unknown): boolean => {
    const next = Number(value);
    if (!Number.isSafeInteger(next) || next < 0) throw new RangeError("Invalid array length");
    if (next < length) {
      for (const index of [...local.keys()]) if (index >= next) local.delete(index);
      cut = Math.min(cut, next);
    }
    length = next;
    return true;
  };
  const write = (index: number, value: T): boolean => {
    local.set(index, value);
    if (index >= length) length = index + 1;
    return true;
  };
  const target: T[] = [];
  return new Proxy(target, {
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
}
