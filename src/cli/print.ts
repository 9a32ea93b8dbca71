/** Writes lines of text on stdout. */
export function printLines(lines: readonly string[]): void {
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
}

/** Writes one JSON document on stdout: what `--json` promises scripts. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** JSON on one line, cut to `width` characters with an ellipsis, for a value shown inside a sentence. */
export function shortJson(value: unknown, width = 80): string {
  const text = JSON.stringify(value) ?? "null";
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
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
