/**
 * Characters a terminal may act on rather than show, or that hide or reorder what it shows: every
 * control character (Cc: C0, DEL, C1; ESC starts the sequences that repaint the screen, 0x9B is a
 * one-byte CSI on some terminals), every format character (Cf: the bidirectional marks, embeddings,
 * overrides and isolates that can show "pay 10000" as "pay 00001", zero-width spaces and joiners,
 * U+2060-U+2064, the byte-order mark, the soft hyphen, U+180E, the tag characters U+E0000-U+E007F),
 * the line and paragraph separators, lone surrogates (Cs), which are no text at all, and every
 * other character that shows as nothing: the default-ignorable code points (the Hangul fillers U+115F,
 * U+1160, U+3164, U+FFA0, the combining grapheme joiner U+034F, the variation selectors...) and the
 * blank Braille pattern U+2800, which could pad a line or hide a difference between two texts.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}\u2028\u2029\u2800]/gu;

/** The pattern of the characters {@link escapeText} escapes (global: reset `lastIndex` before use). */
export const UNSAFE_TEXT = UNSAFE;

/** The short escapes people know; every other unsafe character is written by its code. */
const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** The visible escape of one unsafe character: `\n`, `\x1b`, `\u202e`, `\u{e0041}`. */
export function escapeOne(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.codePointAt(0) ?? 0;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
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
 * The characters JSON leaves as they are but a terminal may act on or hide: DEL, C1 controls, every
 * format character (Cf) and the separators. (`JSON.stringify` already escapes C0 controls and lone
 * surrogates.) They occur only inside JSON strings, where `\uXXXX` (a pair of them above U+FFFF)
 * means the same character.
 */
export const UNSAFE_IN_JSON = /[\u007f-\u009f\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029\u2800]/gu;

/** `\uXXXX` for each UTF-16 unit of a character: a JSON escape. */
export function jsonEscape(character: string): string {
  let escaped = "";
  for (let index = 0; index < character.length; index++)
    escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, "0")}`;
  return escaped;
}

/**
 * JSON text with every character a terminal may act on written as a `\uXXXX` escape: it parses to the
 * same value, and a person who prints `--json` output on a terminal sees the escape, not its effect.
 */
export function escapeJsonText(json: string): string {
  return json.replace(UNSAFE_IN_JSON, jsonEscape);
}
