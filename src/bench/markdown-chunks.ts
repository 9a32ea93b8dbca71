import { createHash } from "node:crypto";
import { canonicalJson } from "../index.js";
import type { Span } from "./markdown-fences.js";
import { codeFences, insideAny } from "./markdown-fences.js";

/** One chunk of a Markdown source: a slice of it, at most the chunk size long. */
export interface Chunk {
  /**
   * SHA-256 (64 hex digits) of the source's path, the span and the text: the same corpus always gives
   * the same ids, and two equal texts at different places get different ones.
   */
  id: string;
  /** The path of the source file, relative to the corpus folder. */
  source: string;
  /** Where the chunk starts in its source. */
  start: number;
  /** Where it ends (exclusive): `text === sourceText.slice(start, end)`. */
  end: number;
  text: string;
}

/** The chunk size of the seed's corpus benchmark, in characters. */
export const DEFAULT_CHUNK_SIZE = 500;

// Split points, from the coarsest to the finest. Each gives the offsets where a new piece starts.
const HEADING = /^#{1,6}[ \t]/gm;
const PARAGRAPH = /\n[ \t]*\n\s*/g;
// A sentence ends at . ! or ? (and any closing quote or bracket) before white space and a character
// that is not a lower-case letter, so that "e.g. this" stays one sentence.
const SENTENCE = /[.!?]["')\]*_`]*\s+(?=[^\s\p{Ll}])/gu;
const WORD = /\s+/g;

type Level = "heading" | "paragraph" | "sentence" | "word" | "character";
const LEVELS: readonly Level[] = ["heading", "paragraph", "sentence", "word", "character"];

/**
 * Splits a Markdown text recursively into chunks of at most `size` characters: by headings first,
 * then paragraphs, then sentences, then words (and, for a single word longer than `size`, by
 * characters). At each level the pieces are merged again, in order, while they fit, so chunks are as
 * large as the size allows without cutting a finer unit than needed. Every chunk is a trimmed slice of
 * the source, so a sentence of the source is found in its chunk exactly as it was written.
 *
 * @example
 * const chunks = chunkMarkdown("guide/limits.md", text); // each chunk.text.length <= 500
 */
export function chunkMarkdown(source: string, text: string, size = DEFAULT_CHUNK_SIZE): Chunk[] {
  if (!Number.isSafeInteger(size) || size < 1)
    throw new RangeError("Expected the chunk size to be a positive integer.");
  const fences = codeFences(text);
  const chunks: Chunk[] = [];
  for (const span of splitSpan(text, fences, { start: 0, end: text.length }, 0, size)) {
    const trimmed = trim(text, span);
    if (trimmed.end <= trimmed.start) continue;
    const chunkText = text.slice(trimmed.start, trimmed.end);
    chunks.push({
      id: chunkId(source, trimmed, chunkText),
      source,
      start: trimmed.start,
      end: trimmed.end,
      text: chunkText,
    });
  }
  return chunks;
}

function chunkId(source: string, span: Span, text: string): string {
  // A versioned domain tag and canonical JSON, never a joined string: a path holding the joining
  // character could not make two chunks share an id.
  const canonical = canonicalJson(["leash.bench.chunk/1", source, span.start, span.end, text]);
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

function splitSpan(text: string, fences: readonly Span[], span: Span, levelIndex: number, size: number): Span[] {
  if (span.end - span.start <= size) return [span];
  const level = LEVELS[levelIndex] ?? "character";
  const points = splitPoints(text, fences, span, level, size);
  if (points.length === 0) return splitSpan(text, fences, span, levelIndex + 1, size);
  const pieces: Span[] = [];
  let start = span.start;
  for (const point of points) {
    pieces.push({ start, end: point });
    start = point;
  }
  pieces.push({ start, end: span.end });
  const merged: Span[] = [];
  let current: Span | null = null;
  for (const piece of pieces) {
    if (piece.end - piece.start > size) {
      if (current !== null) merged.push(current);
      current = null;
      merged.push(...splitSpan(text, fences, piece, levelIndex + 1, size));
    } else if (current !== null && piece.end - current.start <= size) {
      current.end = piece.end;
    } else {
      if (current !== null) merged.push(current);
      current = { start: piece.start, end: piece.end };
    }
  }
  if (current !== null) merged.push(current);
  return merged;
}

/** The offsets strictly inside `span` where a piece of this level starts. */
function splitPoints(text: string, fences: readonly Span[], span: Span, level: Level, size: number): number[] {
  const points: number[] = [];
  const add = (point: number): void => {
    if (point > span.start && point < span.end && points.at(-1) !== point) points.push(point);
  };
  switch (level) {
    case "heading":
      for (const point of matchOffsets(HEADING, text, span, false)) if (!insideAny(fences, point)) add(point);
      break;
    case "paragraph":
      for (const point of matchOffsets(PARAGRAPH, text, span, true)) add(point);
      break;
    case "sentence":
      for (const point of matchOffsets(SENTENCE, text, span, true)) add(point);
      break;
    case "word":
      for (const point of matchOffsets(WORD, text, span, true)) add(point);
      break;
    case "character":
      for (let point = span.start + size; point < span.end; point += size) add(point);
      break;
  }
  return points;
}

/** Where each match of a global pattern starts (or ends, with `atEnd`) within a span. */
function* matchOffsets(pattern: RegExp, text: string, span: Span, atEnd: boolean): Generator<number> {
  pattern.lastIndex = span.start;
  for (let match = pattern.exec(text); match !== null && match.index < span.end; match = pattern.exec(text)) {
    yield atEnd ? match.index + match[0].length : match.index;
    // An empty match would not move on by itself.
    if (match[0].length === 0) pattern.lastIndex++;
  }
}

function trim(text: string, span: Span): Span {
  let { start, end } = span;
  while (start < end && /\s/.test(text[start] as string)) start++;
  while (end > start && /\s/.test(text[end - 1] as string)) end--;
  return { start, end };
}
