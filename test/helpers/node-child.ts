// How a test starts one of this repository's TypeScript modules as a program in a child process.
// scripts/test.mjs compiles src/ and test/ to JavaScript once per run (LEASH_TEST_COMPILED names the
// folder), so that each child is plain `node file.js` rather than tsx compiling the same modules
// again in every child; a test file run alone, without that folder, starts the module under tsx.
import { existsSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { repositoryRoot } from "./repository-root.js";

/** The repository's root. */
const root = repositoryRoot;

/** tsx's loader, as a URL `--import` accepts from any working folder. */
const tsxLoader = pathToFileURL(join(root, "node_modules", "tsx", "dist", "loader.mjs")).href;

/**
 * The JavaScript twin of a TypeScript file of this repository in the run's compiled folder, or
 * `undefined` when there is none (no compiled folder, or a file outside src/ and test/). The file may
 * be named by its path in the repository or by its path in the compiled folder: a compiled module
 * that builds a path from its own `import.meta.url` names the TypeScript source linked beside it.
 */
export function compiledTwin(file: string): string | undefined {
  const folder = process.env.LEASH_TEST_COMPILED;
  if (folder === undefined || folder === "" || !/\.ts$/.test(file)) return undefined;
  const inside = pathInside(folder, file) ?? pathInside(root, file);
  if (inside === undefined) return undefined;
  const twin = join(folder, inside.replace(/\.ts$/, ".js"));
  return existsSync(twin) ? twin : undefined;
}

/** The path of `file` from `folder` when `file` lies inside it, else `undefined`. */
function pathInside(folder: string, file: string): string | undefined {
  const inside = relative(folder, file);
  return inside === "" || inside.startsWith("..") || isAbsolute(inside) ? undefined : inside;
}

/**
 * The arguments of `node` that run `file` (a path) as a program: its compiled twin when the run has
 * one, the file itself under tsx otherwise. Other arguments go after these.
 *
 * @example
 * spawn(process.execPath, [...nodeArguments(fixture), databasePath]);
 */
export function nodeArguments(file: string): string[] {
  const twin = compiledTwin(file);
  return twin === undefined ? ["--import", tsxLoader, file] : [twin];
}

/**
 * How a child process imports `file` (a path) as a module: the URL of its compiled twin when the run
 * has one, with no extra `node` arguments, or the file's own URL with tsx's loader.
 *
 * @example
 * const { loader, href } = importable(join(root, "src", "index.ts"));
 * spawnSync(process.execPath, [...loader, "--input-type=module", "-e", `await import(${JSON.stringify(href)})`]);
 */
export function importable(file: string): { loader: string[]; href: string } {
  const twin = compiledTwin(file);
  return twin === undefined
    ? { loader: ["--import", tsxLoader], href: pathToFileURL(file).href }
    : { loader: [], href: pathToFileURL(twin).href };
}
