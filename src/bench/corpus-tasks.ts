import type { Chunk } from "./markdown-chunks.js";
import type { CorpusFile } from "./corpus-files.js";
import type { Span } from "./markdown-fences.js";
import { codeFences, insideAny } from "./markdown-fences.js";
import { seededRandom, shuffled } from "./seeded-random.js";

/** One task of the corpus benchmark: find the chunk that holds a sentence, given its first half. */
export interface CorpusTask {
  /** The first half of the sentence (its first ⌈words / 2⌉ words, exactly as written). */
  query: string;
  /** The whole sentence. */
  sentence: string;
  /** The id of the chunk holding the sentence: the right answer. */
  chunkId: string;
}

// Bounds on a sentence worth a task: long enough that its first half says something, short enough to
// be a sentence of prose rather than a run-on list.
const MIN_WORDS = 8;
const MAX_WORDS = 60;
const SENTENCE_END = /[.!?]["')\]*_`]*\s+(?=[^\s\p{Ll}])/gu;
// A new line that starts a list item, a heading, a table row or a quote begins a new sentence too.
const BLOCK_START = /\n(?=[ \t]*(?:[-*+]|\d+[.)]|#{1,6}|\||>)[ \t])/g;
const PARAGRAPH = /\n[ \t]*\n/g;

/**
 * Picks `count` tasks from the corpus with a seeded PRNG: sentences of prose (outside code fences, not
 * headings or table rows, starting with a capital letter and ending with . ! or ?, 8 to 60 words),
 * each found whole in exactly one chunk, so that the right answer is a single chunk. Sentences are
 * listed in corpus order and shuffled by the seed; fewer tasks are returned when the corpus has fewer
 * such sentences.
 */
export function pickTasks(
  files: readonly CorpusFile[],
  chunks: readonly Chunk[],
  count: number,
  seed: number,
): CorpusTask[] {
  const candidates: CorpusTask[] = [];
  const seen = new Set<string>();
  const fencesBySource = new Map(files.map((file) => [file.path, codeFences(file.text)]));
  for (const chunk of chunks) {
    const fences = fencesBySource.get(chunk.source) ?? [];
    for (const span of sentenceSpans(chunk.text)) {
      const sentence = chunk.text.slice(span.start, span.end);
      if (seen.has(sentence) || !isProse(sentence) || insideAny(fences, chunk.start + span.start)) continue;
      seen.add(sentence);
      if (occurrences(chunks, sentence) !== 1) continue;
      candidates.push({ query: firstHalf(sentence), sentence, chunkId: chunk.id });
    }
  }
  return shuffled(candidates, seededRandom(seed)).slice(0, Math.max(0, count));
}

/** The spans of a chunk's text that are sentences, trimmed; the chunk's edges may cut the first and last. */
function sentenceSpans(text: string): Span[] {
  const points = new Set<number>([0, text.length]);
  for (const pattern of [SENTENCE_END, BLOCK_START, PARAGRAPH]) {
    for (const match of text.matchAll(pattern)) points.add(match.index + match[0].length);
  }
  const sorted = [...points].sort((a, b) => a - b);
  const spans: Span[] = [];
  for (let index = 1; index < sorted.length; index++) {
    let start = sorted[index - 1] as number;
    let end = sorted[index] as number;
    while (start < end && /\s/.test(text[start] as string)) start++;
    while (end > start && /\s/.test(text[end - 1] as string)) end--;
    if (end > start) spans.push({ start, end });
  }
  return spans;
}

function isProse(sentence: string): boolean {
  if (!/^[A-Z]/.test(sentence) || !/[.!?]["')\]*_`]*$/.test(sentence)) return false;
  if (sentence.includes("```") || sentence.includes("|")) return false;
  const words = sentence.split(/\s+/).length;
  return words >= MIN_WORDS && words <= MAX_WORDS;
}

function occurrences(chunks: readonly Chunk[], sentence: string): number {
  let found = 0;
  for (const chunk of chunks) {
    for (let at = chunk.text.indexOf(sentence); at !== -1; at = chunk.text.indexOf(sentence, at + 1)) found++;
  }
  return found;
}

/** The sentence up to the end of its ⌈words / 2⌉-th word, as written (a slice, so a chunk holds it). */
function firstHalf(sentence: string): string {
  const words = [...sentence.matchAll(/\S+/g)];
  const last = words[Math.ceil(words.length / 2) - 1];
  return last === undefined ? sentence : sentence.slice(0, last.index + last[0].length);
}
