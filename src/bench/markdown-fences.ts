/** A half-open range of character offsets, `[start, end)`, into a source text. */
export interface Span {
  start: number;
  end: number;
}

const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})/gm;

/**
 * The fenced code blocks of a Markdown text, each from the start of its opening fence line to the end
 * of its closing fence line (or the end of the text when it is never closed). A `#` line inside a
 * fence is a comment, not a heading, and a sentence inside one is code, not prose.
 */
export function codeFences(text: string): Span[] {
  const fences: Span[] = [];
  let open: { start: number; marker: string } | null = null;
  for (const match of text.matchAll(FENCE)) {
    const marker = match[1] as string;
    if (open === null) {
      open = { start: match.index, marker };
    } else if (marker[0] === open.marker[0] && marker.length >= open.marker.length) {
      const lineEnd = text.indexOf("\n", match.index);
      fences.push({ start: open.start, end: lineEnd === -1 ? text.length : lineEnd + 1 });
      open = null;
    }
  }
  if (open !== null) fences.push({ start: open.start, end: text.length });
  return fences;
}

/** Whether an offset falls inside one of the (sorted, disjoint) spans. */
export function insideAny(spans: readonly Span[], offset: number): boolean {
  let low = 0;
  let high = spans.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    const span = spans[middle] as Span;
    if (offset < span.start) high = middle;
    else if (offset >= span.end) low = middle + 1;
    else return true;
  }
  return false;
}
