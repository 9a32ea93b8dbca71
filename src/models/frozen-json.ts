import { canonicalOfJson, MAX_RECORD_DEPTH, toJson } from "../json/index.js";
import type { Json } from "../json/index.js";

/** A deeply frozen value checked as JSON once, with its canonical text. */
interface Checked {
  json: Json;
  text: string;
  /** The depth it was checked at; deeper sits closer to the limit. */
  depth: number;
}

// Values that were found deeply frozen: freezing cannot be undone, so once is enough.
const deeplyFrozen = new WeakSet<object>();
const checked = new WeakMap<object, Checked>();

function isDeeplyFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  if (deeplyFrozen.has(value)) return true;
  if (!Object.isFrozen(value)) return false;
  for (const item of Object.values(value)) if (!isDeeplyFrozen(item)) return false;
  deeplyFrozen.add(value);
  return true;
}

function freeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    Object.freeze(value);
    for (const item of Object.values(value)) freeze(item);
  }
  return value;
}

/**
 * The checked JSON copy and canonical text of a deeply frozen object (a tool description, which a
 * toolset makes once and freezes), made on first use and kept: the value cannot change, so checking
 * and canonicalizing it at every model call would give the same answer each time. `undefined` for a
 * value that is not a deeply frozen object, or not JSON, which the caller checks as usual.
 *
 * @param depth how deep in the checked value it sits, so that the depth limit counts as it would there.
 * @example const known = frozenJson(request.tools[0], 2);
 */
export function frozenJson(value: unknown, depth: number): Checked | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const known = checked.get(value);
  if (known !== undefined && known.depth >= depth) return known;
  if (!isDeeplyFrozen(value)) return undefined;
  let json: Json;
  try {
    json = toJson(value, "the value", { maxDepth: MAX_RECORD_DEPTH - depth });
  } catch {
    // Not JSON: the caller's own check refuses it, with its own words.
    return undefined;
  }
  const made: Checked = { json: freeze(json), text: canonicalOfJson(json), depth };
  checked.set(value, made);
  return made;
}
