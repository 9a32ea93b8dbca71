/**
 * The `digest` field of a record's stored text, parsed outside SQL, or null: the SQL stores read a
 * chain's head from plain columns, and fall back to this for rows written before the digest column.
 */
export function digestInText(text: unknown): string | null {
  try {
    const value: unknown = JSON.parse(String(text));
    const digest = typeof value === "object" && value !== null ? (value as { digest?: unknown }).digest : undefined;
    return typeof digest === "string" ? digest : null;
  } catch {
    return null;
  }
}
