import type { AnswerOrigin } from "../approvals/answer-origin.js";
import { LeashError, isLeashError } from "../errors/index.js";
import { toJson } from "../json/index.js";

/** The most fields an origin may carry: a channel says where an answer came from, not a document. */
const MAX_ORIGIN_FIELDS = 16;

/**
 * An answer's origin, checked and copied: `{ via, ...more }`, `via` a non-empty string and every other
 * field a string (the command line's `user` and `host`, the MCP gateway's `client` and `host`).
 */
export function checkOrigin(origin: unknown): AnswerOrigin | undefined {
  if (origin === undefined) return undefined;
  const fail = (why: string): never => {
    throw new LeashError(
      "invalid_option",
      `Expected \`origin\` to be \`{ via, ...more }\`, \`via\` a non-empty string and every other field a string: ${why}.`,
    );
  };
  if (typeof origin !== "object" || origin === null || Array.isArray(origin)) return fail("it is not an object");
  // Each field is read once into a plain object and only the copy is checked and kept: a getter
  // cannot show the check one value and the record another.
  const copy: Record<string, unknown> = {};
  try {
    const keys = Object.keys(origin);
    if (keys.length > MAX_ORIGIN_FIELDS) return fail(`it has ${keys.length} fields, more than ${MAX_ORIGIN_FIELDS}`);
    for (const key of keys) {
      // Set on a plain object, `__proto__` would change its prototype rather than add a field.
      if (key === "__proto__") return fail("it has a field `__proto__`");
      copy[key] = (origin as Record<string, unknown>)[key];
    }
  } catch (error) {
    if (isLeashError(error)) throw error;
    return fail("its fields cannot be read");
  }
  if (typeof copy.via !== "string" || copy.via === "") return fail("`via` is not a non-empty string");
  for (const [key, value] of Object.entries(copy))
    if (typeof value !== "string") return fail(`\`${key}\` is not a string`);
  toJson(copy, "the origin of an answer");
  return copy as AnswerOrigin;
}
