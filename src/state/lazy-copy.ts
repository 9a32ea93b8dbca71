/**
 * A copy of an array whose elements are cloned only when first read.
 *
 * A planner gets a fresh copy of the run's state at every step; cloning every earlier step each time
 * would make a run of N steps cost O(N²). This copy costs O(1) to make and O(1) per element read,
 * and behaves like an ordinary array: writes, pushes and deletes change the copy only.
 */
export function lazyCopy<T>(source: readonly T[], clone: (item: T) => T): T[] {
  const target: T[] = new Array<T>(source.length);
  // Only the indexes read or written so far: nothing proportional to the run is allocated up front.
  const copied = new Set<number>();
  let whole = false;
  const materialize = (index: number): void => {
    if (index < source.length && !copied.has(index)) {
      copied.add(index);
      target[index] = clone(source[index] as T);
    }
  };
  const materializeAll = (): void => {
    if (whole) return;
    for (let index = 0; index < source.length; index++) materialize(index);
    whole = true;
  };
  const asIndex = (property: string | symbol): number => {
    if (typeof property !== "string") return -1;
    const index = Number(property);
    return Number.isInteger(index) && index >= 0 && String(index) === property ? index : -1;
  };
  return new Proxy(target, {
    get(object, property, receiver) {
      const index = asIndex(property);
      if (index >= 0 && !whole) materialize(index);
      return Reflect.get(object, property, receiver) as unknown;
    },
    set(object, property, value, receiver) {
      const index = asIndex(property);
      if (index >= 0 && index < source.length) copied.add(index);
      // Shrinking the array through `length` drops elements that must not come back later.
      if (property === "length") materializeAll();
      return Reflect.set(object, property, value, receiver);
    },
    has(object, property) {
      const index = asIndex(property);
      if (index >= 0 && !whole) materialize(index);
      return Reflect.has(object, property);
    },
    deleteProperty(object, property) {
      materializeAll();
      return Reflect.deleteProperty(object, property);
    },
    ownKeys(object) {
      materializeAll();
      return Reflect.ownKeys(object);
    },
    getOwnPropertyDescriptor(object, property) {
      const index = asIndex(property);
      if (index >= 0 && !whole) materialize(index);
      return Reflect.getOwnPropertyDescriptor(object, property);
    },
    defineProperty(object, property, descriptor) {
      const index = asIndex(property);
      if (index >= 0 && index < source.length) copied.add(index);
      return Reflect.defineProperty(object, property, descriptor);
    },
  });
}
