import type { Tool } from "../index.js";
import { tool } from "../index.js";
import type { SearchIndex } from "./search-index.js";

/** The scope the corpus tools need. */
export const CORPUS_SCOPE = "corpus:read";
/** The scope of the write tool of the pause check. */
export const NOTES_SCOPE = "notes:write";

/** How many times each tool's `execute` was called: the check that a denied tool never ran. */
type ToolCallCounts = Record<"search" | "read" | "save_note", number>;

/** The corpus benchmark's tools and the counts of their calls. */
interface CorpusTools {
  search: Tool;
  read: Tool;
  /** A write tool, added only for the pause check: a planner that tries to write first must pause. */
  saveNote: Tool;
  calls: ToolCallCounts;
}

/**
 * The tools of the seed's corpus benchmark: `search` (cost 1) returns ranked chunk ids, `read`
 * (cost 0.25) returns a chunk's text; both need `corpus:read`. `save_note` is a write tool that must
 * never run in the benchmark.
 */
export function corpusTools(index: SearchIndex, hits: number): CorpusTools {
  const calls: ToolCallCounts = { search: 0, read: 0, save_note: 0 };
  const search = tool({
    name: "search",
    description: `Search the guide (BM25); returns the ids of the ${hits} best chunks, best first.`,
    parameters: {
      type: "object",
      properties: { query: { type: "string", minLength: 1 } },
      required: ["query"],
      additionalProperties: false,
    },
    scopes: [CORPUS_SCOPE],
    cost: 1,
    execute: ({ query }) => {
      calls.search++;
      // The schema has made sure the arguments are strings before execute is called.
      return index.search(query as string, hits);
    },
  });
  const read = tool({
    name: "read",
    description: "Return the text of a chunk of the guide.",
    parameters: {
      type: "object",
      properties: { id: { type: "string", pattern: "^[0-9a-f]{64}$" } },
      required: ["id"],
      additionalProperties: false,
    },
    scopes: [CORPUS_SCOPE],
    cost: 0.25,
    execute: ({ id }) => {
      calls.read++;
      const text = index.text(id as string);
      if (text === undefined) throw new Error(`No chunk has the id ${id as string}.`);
      return text;
    },
  });
  const saveNote = tool({
    name: "save_note",
    description: "Save a note about the guide.",
    parameters: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    scopes: [NOTES_SCOPE],
    effect: "write",
    execute: () => {
      calls.save_note++;
      return "saved";
    },
  });
  return { search, read, saveNote, calls };
}
