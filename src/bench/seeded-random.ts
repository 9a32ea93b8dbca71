/**
 * A pseudo-random number generator from a 32-bit seed (mulberry32): the same seed gives the same
 * sequence on every machine, so a benchmark's task sample is reproducible from its seed alone.
 * Returns numbers in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  // `>>> 0` keeps the state an unsigned 32-bit integer whatever number was given.
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** A shuffled copy of `items` (Fisher-Yates), driven by `random`. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = items.slice();
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    const item = copy[index] as T;
    copy[index] = copy[other] as T;
    copy[other] = item;
  }
  return copy;
}
