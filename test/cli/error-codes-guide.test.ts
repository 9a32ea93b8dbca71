// Every code the command line can print is in the guide: scanned from the source (each `new
// CliError(...)`'s code, and the codes the error report makes up itself), so a new code that the guide
// does not list fails here.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ERROR_CODES } from "../../src/index.js";
import { root } from "./cli-helpers.js";

const LIBRARY_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The text of a call's first argument: from after `(` to the first comma outside brackets. */
function firstArgument(text: string, from: number): string {
  let depth = 0;
  for (let at = from; at < text.length; at++) {
    const char = text[at];
    if (char === "(" || char === "[" || char === "{") depth++;
    else if (char === ")" || char === "]" || char === "}") {
      if (depth === 0) return text.slice(from, at);
      depth--;
    } else if (char === "," && depth === 0) return text.slice(from, at);
  }
  return text.slice(from);
}

/** Every code a `CliError` is made with, by the files that make it; a code that is not a literal is an error. */
function cliErrorCodes(): Map<string, Set<string>> {
  const codes = new Map<string, Set<string>>();
  const add = (code: string, file: string) => codes.set(code, (codes.get(code) ?? new Set()).add(file));
  for (const file of sourceFiles(join(root, "src"))) {
    const text = readFileSync(file, "utf8");
    const relative = file.slice(root.length);
    for (const match of text.matchAll(/new CliError\(/g)) {
      const argument = firstArgument(text, (match.index ?? 0) + match[0].length);
      const literals = [...argument.matchAll(/["'`]([a-z][a-z0-9_]*)["'`]/g)].map((found) => found[1] as string);
      assert.ok(
        literals.length > 0,
        `${relative}: a CliError whose code is not a string literal (${argument.trim()}): write the codes out, so that this test can check the guide lists them`,
      );
      for (const code of literals) add(code, relative);
    }
    // The report's own codes: a usage error, and anything thrown that is not an error of leash's.
    if (/src\/cli\/(report-error|run-cli)\.ts$/.test(file))
      for (const found of text.matchAll(/code: "([a-z_]+)"/g)) add(found[1] as string, relative);
  }
  return codes;
}

/** The codes in backticks of the command line page's list, "The codes of the command line itself". */
function commandLineList(): Set<string> {
  const page = readFileSync(join(root, "docs", "guide", "10-command-line.md"), "utf8");
  const start = page.indexOf("The codes of the command line itself");
  assert.ok(start !== -1, "page 10 has its list of the command line's codes");
  const end = page.indexOf("\n\n", start);
  return new Set([...page.slice(start, end).matchAll(/`([a-z_]+)`/g)].map((found) => found[1] as string));
}

/** The codes of the guide's table of leash's errors (README, "Errors"). */
function libraryTable(): Set<string> {
  const readme = readFileSync(join(root, "docs", "guide", "README.md"), "utf8");
  const rows = readme.split("\n").filter((line) => line.startsWith("| `"));
  return new Set(
    rows.flatMap((row) => [...(row.split(" | ")[0] ?? "").matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string)),
  );
}

test("every code the command line prints is in the guide's list of codes", () => {
  const codes = cliErrorCodes();
  const listed = commandLineList();
  const table = libraryTable();
  assert.ok(codes.has("usage") && codes.has("internal_error") && codes.has("listen_failed"), "the scan finds codes");
  const missing = [...codes]
    .filter(([code]) => !listed.has(code) && !(LIBRARY_CODES.has(code) && table.has(code)))
    .map(([code, files]) => `${code} (${[...files].join(", ")})`);
  assert.deepEqual(
    missing,
    [],
    "codes the command line prints that neither page 10's list nor the table of errors names",
  );
});

test("the guide's list of the command line's codes names no code the command line cannot print", () => {
  const codes = cliErrorCodes();
  const stale = [...commandLineList()].filter((code) => !codes.has(code) && !LIBRARY_CODES.has(code));
  assert.deepEqual(stale, []);
});
