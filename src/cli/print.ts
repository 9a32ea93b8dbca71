import { escapeJsonText, escapeText } from "../operate/escape-text.js";
import { maskPasswords } from "../operate/mask-password.js";

/**
 * Writes lines of text on stdout, each escaped ({@link escapeText}): lines carry run data (goals,
 * reasons, arguments, notes), and a line break or an escape sequence in it must not forge a line.
 */
export function printLines(lines: readonly string[]): void {
  if (lines.length > 0) process.stdout.write(`${lines.map(escapeText).join("\n")}\n`);
}

/** Writes one JSON document on stdout: what `--json` promises scripts, escaped for a terminal too. */
export function printJson(value: unknown): void {
  process.stdout.write(`${jsonText(value, 2)}\n`);
}

/** Writes one JSON document on one line of stdout: a long-running command's `--json` output is a stream of them. */
export function printJsonLine(value: unknown): void {
  process.stdout.write(`${jsonText(value)}\n`);
}

/** JSON text of a value, with what a terminal may act on escaped ({@link escapeJsonText}). */
export function jsonText(value: unknown, indent?: number): string {
  return escapeJsonText(JSON.stringify(value, null, indent) ?? "null");
}

/** Text cut to `width` characters with an ellipsis. */
export function shorten(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

/** Rows of cells as aligned columns, the first row being the header. */
export function formatTable(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

/** Writes lines on stderr, each escaped as {@link printLines} escapes them: warnings and errors quote run data too. */
export function printErrorLines(lines: readonly string[]): void {
  if (lines.length > 0) process.stderr.write(`${lines.map((line) => escapeText(maskPasswords(line))).join("\n")}\n`);
}

/**
 * Writes one JSON document on one line of stderr: under `--json`, each warning and log line is one,
 * so that a script can read stderr line by line too. Passwords in it are masked, as in text.
 */
export function printErrorJsonLine(value: unknown): void {
  process.stderr.write(`${maskPasswords(jsonText(value))}\n`);
}
