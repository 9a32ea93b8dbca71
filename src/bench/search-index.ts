import MiniSearch from "minisearch";
import type { Chunk } from "./markdown-chunks.js";

/**
 * Classic BM25 (Robertson et al.): k1 = 1.2, b = 0.75, and no BM25+ lower bound (`d: 0`; minisearch
 * defaults to BM25+ with `d: 0.5`), as the seed's benchmark searches.
 */
const BM25 = { k: 1.2, b: 0.75, d: 0 } as const;

/** How many ranked chunk ids a search returns by default. */
export const DEFAULT_HITS = 10;

/** A BM25 index over chunks' texts (minisearch 7), searched by any of a query's terms. */
export class SearchIndex {
  readonly #search: MiniSearch<Chunk>;
  readonly #chunks: Map<string, Chunk>;

  constructor(chunks: readonly Chunk[]) {
    this.#chunks = new Map(chunks.map((chunk) => [chunk.id, chunk]));
    this.#search = new MiniSearch<Chunk>({
      idField: "id",
      fields: ["text"],
      storeFields: [],
      searchOptions: { bm25: { ...BM25 }, prefix: false, fuzzy: false, combineWith: "OR" },
    });
    this.#search.addAll(chunks);
  }

  /** The ids of the best `limit` chunks for a query, best first (ties in a fixed order, the same on every run). */
  search(query: string, limit = DEFAULT_HITS): string[] {
    return this.#search
      .search(query)
      .slice(0, limit)
      .map((result) => String(result.id));
  }

  /** A chunk's text, or `undefined` for an id the corpus does not hold. */
  text(id: string): string | undefined {
    return this.#chunks.get(id)?.text;
  }

  get size(): number {
    return this.#chunks.size;
  }
}
