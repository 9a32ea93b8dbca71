import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** One Markdown file of a corpus. */
export interface CorpusFile {
  /** The path relative to the corpus folder, with "/" separators on every system. */
  path: string;
  text: string;
}

/**
 * Reads every Markdown file (`.md`) under a folder, recursively, in path order, so that the same
 * folder always gives the same corpus. Throws when the folder does not exist or holds no Markdown.
 */
export function readCorpus(folder: string): CorpusFile[] {
  let isFolder: boolean;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder)
    throw new Error(`The corpus folder ${folder} does not exist; pass another with the \`corpus\` option.`);
  const paths = readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((path) => path.toLowerCase().endsWith(".md"))
    .map((path) => relative(folder, join(folder, path)).split(sep).join("/"))
    .sort();
  if (paths.length === 0) throw new Error(`The corpus folder ${folder} holds no Markdown (.md) files.`);
  return paths.map((path) => ({ path, text: readFileSync(join(folder, path), "utf8") }));
}
