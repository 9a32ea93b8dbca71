/**
 * Characters a terminal may act on rather than show, or that reorder what it shows: C0 controls
 * (ESC starts the sequences that move the cursor and repaint the screen), DEL, C1 controls (0x9B is
 * a one-byte CSI on some terminals), the bidirectional marks, embeddings, overrides and isolates
 * (U+200E/F, U+061C, U+202A-E, U+2066-9: "pay 10000" can be shown as "pay 00001"), the line and
 * paragraph separators, and lone surrogates, which are no text at all.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The short escapes people know; every other unsafe character is written by its code. */
const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeOne(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * Text from run data (a goal, a model's reason, arguments, a result, a note, an error, an approver's
 * name, a run id) made safe to print on a terminal: every control, bidirectional or format character
 * and every lone surrogate becomes a visible escape (`\x1b`, `\u202e`, `\n`), so no run can repaint or
 * reorder what a person reads before answering it. Every printer of the command line goes through it.
 *
 * @example
 * escapeText("pay 10\u001b[2K\rpay 10000"); // "pay 10\\x1b[2K\\rpay 10000"
 */
export function escapeText(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/**
 * The characters JSON leaves as they are but a terminal may act on: DEL, C1 controls, the
 * bidirectional and separator characters. (`JSON.stringify` already escapes C0 controls and lone
 * surrogates.) They occur only inside JSON strings, where `\uXXXX` means the same character.
 */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text with every character a terminal may act on written as a `\uXXXX` escape: it parses to the
 * same value, and a person who prints `--json` output on a terminal sees the escape, not its effect.
 */
export function escapeJsonText(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
