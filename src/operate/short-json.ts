/**
 * JSON on one line, cut to `width` characters for a value shown inside a list. A cut says so, and
 * how much it left out: never use it for what a person approves ({@link fullJsonLines}).
 */
export function shortJson(value: unknown, width = 80, seeAlso = "see leash show"): string {
  const text = JSON.stringify(value) ?? "null";
  if (text.length <= width) return text;
  return `${text.slice(0, width - 1)}… (${text.length - width + 1} more characters; ${seeAlso})`;
}

/**
 * A value as whole JSON, pretty-printed over several lines, each prefixed with `indent`: what a
 * person reads before answering a request. Nothing is cut, whatever its length or key order.
 */
export function fullJsonLines(value: unknown, indent: string): string[] {
  return (JSON.stringify(value, null, 2) ?? "null").split("\n").map((line) => `${indent}${line}`);
}
