// Which test files a run has, and what each one needs: PostgreSQL (it or a module it imports reads
// DATABASE_URL), a browser (it reaches playwright-core), or the machine to itself (a line
// `// test-runs-alone: <why>` in the comment that opens it, for a file that measures time or shares
// what cannot be shared).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The marker of a file that runs while no other file does: a line of the comment that opens the file. */
const ALONE = /^(?:\/\/.*\n)*?\/\/ test-runs-alone: \S/;

/**
 * The `*.test.ts` files under `folder` whose path from `root` contains one of `filters` (all of them
 * when there is none), sorted, each with `{ path, postgres, browser, alone }` (`path` from `root`).
 */
export function testFiles(root, folder, filters) {
  const cache = new Map();
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".test.ts"))
    .map((file) => relative(root, join(folder, file)))
    .filter((file) => filters.length === 0 || filters.some((part) => file.includes(part)))
    .sort()
    .map((path) => {
      const text = readFileSync(join(root, path), "utf8");
      const reached = reachedText(resolve(root, path), cache);
      return {
        path,
        postgres: reached.includes("DATABASE_URL"),
        browser: reached.includes('"playwright-core"'),
        alone: ALONE.test(text),
      };
    });
}

/** The text of a module and of every module of the repository it imports, directly or not. */
function reachedText(file, cache, seen = new Set()) {
  if (seen.has(file)) return "";
  seen.add(file);
  let text = cache.get(file);
  if (text === undefined) {
    text = existsSync(file) ? readFileSync(file, "utf8") : "";
    cache.set(file, text);
  }
  let reached = text;
  // Relative imports, absolute paths and file: URLs lead to the repository's modules; bare names to packages.
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*["']((?:\.{1,2}\/|\/|file:\/\/)[^"']+)["']/g)) {
    const specifier = match[1];
    const target = specifier.startsWith("file://") ? fileURLToPath(specifier) : resolve(dirname(file), specifier);
    const source = target.replace(/\.js$/, ".ts");
    reached += reachedText(existsSync(source) ? source : target, cache, seen);
  }
  return reached;
}
