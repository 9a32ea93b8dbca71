import type { Json, JsonObject } from "../json/index.js";

const MAX_PATTERN_LENGTH = 1000;
/** Keywords whose values are data, not schemas: their `pattern` keys are not regular expressions. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);

interface Group {
  quantified: boolean;
  alternation: boolean;
}

function quantifierAt(source: string, at: number): { unbounded: boolean; length: number } | undefined {
  const char = source[at];
  if (char === "*" || char === "+") return { unbounded: true, length: 1 };
  if (char === "?") return { unbounded: false, length: 1 };
  if (char !== "{") return undefined;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
  if (match === null) return undefined;
  const upper = match[2] === undefined ? Number(match[1]) : match[3] === "" ? Infinity : Number(match[3]);
  return { unbounded: upper > 1, length: match[0].length };
}

/**
 * Whether a regular expression is provably free of catastrophic backtracking, by a conservative
 * check: no backreference, no lookaround, and no repeated group that holds a quantifier or an
 * alternation (`(a+)+`, `(a*)*`, `(a|aa)*`). A pattern that is not provably safe is `false`, even
 * when it would in fact be harmless.
 */
function isSafePattern(source: string): boolean {
  if (source.length > MAX_PATTERN_LENGTH) return false;
  const stack: Group[] = [{ quantified: false, alternation: false }];
  let at = 0;
  while (at < source.length) {
    const char = source[at]!;
    let atomEnd = at + 1;
    let closed: Group | undefined;
    if (char === "\\") {
      const next = source[at + 1];
      if (next === undefined) return false;
      if (/[1-9]/.test(next) || next === "k") return false;
      atomEnd = at + 2;
    } else if (char === "[") {
      let end = at + 1;
      if (source[end] === "^") end += 1;
      if (source[end] === "]") end += 1;
      while (end < source.length && source[end] !== "]") end += source[end] === "\\" ? 2 : 1;
      if (end >= source.length) return false;
      atomEnd = end + 1;
    } else if (char === "(") {
      if (source[at + 1] === "?") {
        const kind = source.slice(at + 2, at + 4);
        if (kind.startsWith("=") || kind.startsWith("!") || kind === "<=" || kind === "<!") return false;
      }
      stack.push({ quantified: false, alternation: false });
      at += 1;
      continue;
    } else if (char === ")") {
      closed = stack.pop();
      if (closed === undefined || stack.length === 0) return false;
    } else if (char === "|") {
      stack.at(-1)!.alternation = true;
      at += 1;
      continue;
    }
    const quantifier = quantifierAt(source, atomEnd);
    const current = stack.at(-1)!;
    if (closed !== undefined) {
      if (quantifier?.unbounded === true && (closed.quantified || closed.alternation)) return false;
      current.quantified ||= closed.quantified;
      current.alternation ||= closed.alternation;
    }
    if (quantifier !== undefined) {
      current.quantified = true;
      atomEnd += quantifier.length;
      if (source[atomEnd] === "?") atomEnd += 1;
    }
    at = atomEnd;
  }
  return stack.length === 1;
}

function stripped(value: Json): Json {
  if (Array.isArray(value)) return value.map((item) => stripped(item));
  if (typeof value !== "object" || value === null) return value;
  const out: JsonObject = {};
  let droppedPatternProperty = false;
  for (const [key, item] of Object.entries(value)) {
    if (DATA_KEYWORDS.has(key)) {
      define(out, key, item);
    } else if (key === "pattern" && typeof item === "string") {
      if (isSafePattern(item)) define(out, key, item);
    } else if (key === "patternProperties" && typeof item === "object" && item !== null && !Array.isArray(item)) {
      const kept: JsonObject = {};
      for (const [pattern, schema] of Object.entries(item)) {
        if (isSafePattern(pattern)) define(kept, pattern, stripped(schema));
        else droppedPatternProperty = true;
      }
      define(out, key, kept);
    } else {
      define(out, key, stripped(item));
    }
  }
  // Without a dropped pattern's schema, the properties it matched would fall to these: leave them out.
  if (droppedPatternProperty) {
    delete out.additionalProperties;
    delete out.unevaluatedProperties;
  }
  return out;
}

function define(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A copy of a JSON Schema that leash can validate with in bounded time: every `pattern` keyword and
 * `patternProperties` key that is not provably safe ({@link isSafePattern}) is left out (with
 * `additionalProperties` / `unevaluatedProperties` beside a dropped key). The server still checks its
 * own input; the definition, the digest and what models see keep the original. Returns whether any was
 * left out, so an unchanged schema can be used as it is.
 */
export function safeSchema(schema: Json): { schema: Json; changed: boolean } {
  const copy = stripped(schema);
  return { schema: copy, changed: JSON.stringify(copy) !== JSON.stringify(schema) };
}
