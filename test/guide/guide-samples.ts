// The user guide's TypeScript samples (docs/guide/*.md), read and written out for the tests that run
// them (guide-samples.test.ts) and type-check them (guide-typecheck.test.ts), which are two files so
// that the type-check, the longest part, runs beside the samples. Each ```ts block is written to a
// file inside the repository (under the git-ignored .tmp/guide/), so that `import ... from "leash"`
// resolves to this package by self-reference (its `exports` point at dist/, which `npm test` builds
// first).
//
// The fence's info string says how a block is treated:
//   ```ts                        run it
//   ```ts skip                   show it, never run it (a fragment)
//   ```ts needs=DATABASE_URL     run it against PostgreSQL: skipped, loudly, when DATABASE_URL is
//                                unset, except in CI (CI=true), where it must run
//   ```ts waits-on=PIECE[,PIECE] run it once the piece has landed: a subpath (`leash/sqlite`), a named
//                                export of `leash` (`modelPlanner`) or `cli` (the built bin); until then
//                                it is skipped, loudly, except in CI, where a missing piece fails
//   ```sh, ```text, ...          not TypeScript: never run
import { after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const root = fileURLToPath(new URL("../../", import.meta.url));
/** The guide's folder. */
export const guide = join(root, "docs", "guide");
/** Whether this is CI, where every sample must run. */
export const inCi = process.env.CI === "true";
/** tsx's loader: a reader runs a TypeScript sample with tsx. */
export const tsxLoader = import.meta.resolve("tsx");

/**
 * The esbuild that tsx runs on every TypeScript file it loads. A sample is compiled with it once, when
 * written out, and its JavaScript run with plain node: what a reader's `tsx sample.ts` would run,
 * without loading tsx's hooks into each of the samples' processes.
 */
const esbuild = createRequire(createRequire(import.meta.url).resolve("tsx/package.json"))("esbuild") as {
  transformSync(code: string, options: Record<string, unknown>): { code: string };
};

/** The compiled JavaScript of a sample written by {@link writeSamples}, to run with `node`. */
export function compiledSample(folder: string, sample: { file: string }): string {
  return join(folder, sample.file.replace(/\.ts$/, ".mjs"));
}
const SAMPLE_TIMEOUT_MS = 60_000;

/** One fenced block of a page. */
interface Block {
  page: string;
  /** The 1-based line of the opening fence. */
  line: number;
  language: string;
  words: string[];
  code: string;
}

/** A runnable TypeScript sample, numbered from 1 within its page. */
export interface Sample extends Block {
  number: number;
  waitsOn: string[];
  needs: string[];
  /** The sample's file name, unique in the run's folder. */
  file: string;
}

const TS_LANGUAGES = new Set(["ts", "typescript"]);

/** Splits a page into its fenced blocks (``` or ~~~, three or more, at the start of a line). */
function fencedBlocks(page: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const open = /^(`{3,}|~{3,})\s*(.*)$/.exec(lines[index] ?? "");
    if (open === null) continue;
    const fence = open[1] ?? "```";
    const [language = "", ...words] = (open[2] ?? "")
      .trim()
      .split(/\s+/)
      .filter((word) => word !== "");
    const body: string[] = [];
    let end = index + 1;
    const closes = new RegExp(`^${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    while (end < lines.length && !closes.test(lines[end] ?? "")) body.push(lines[end++] ?? "");
    assert.ok(end < lines.length, `${page}: the block opened at line ${index + 1} is never closed`);
    blocks.push({ page, line: index + 1, language: language.toLowerCase(), words, code: `${body.join("\n")}\n` });
    index = end;
  }
  return blocks;
}

function samplesOf(page: string, text: string): Sample[] {
  const samples: Sample[] = [];
  for (const block of fencedBlocks(page, text)) {
    if (!TS_LANGUAGES.has(block.language) || block.words.includes("skip")) continue;
    const waitsOn: string[] = [];
    const needs: string[] = [];
    for (const word of block.words) {
      const [key, value = ""] = word.split("=", 2);
      const list = value.split(",").filter((item) => item !== "");
      // A typo in a fence must not quietly turn a sample into one that never runs.
      assert.ok(
        (key === "waits-on" || key === "needs") && list.length > 0,
        `${page}:${block.line}: unknown word \`${word}\` in the fence of a ts sample`,
      );
      (key === "waits-on" ? waitsOn : needs).push(...list);
    }
    const number = samples.length + 1;
    samples.push({
      ...block,
      number,
      waitsOn,
      needs,
      file: `${page.replace(/\.md$/, "").replace(/[^A-Za-z0-9]+/g, "-")}-${number}.ts`,
    });
  }
  return samples;
}

/** The guide's pages, by file name. */
export const pages = readdirSync(guide)
  .filter((name) => name.endsWith(".md"))
  .sort();
/** Every runnable sample of every page. */
export const samples = pages.flatMap((page) => samplesOf(page, readFileSync(join(guide, page), "utf8")));

const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  exports: Record<string, { import?: string } | string>;
  bin?: Record<string, string>;
};
const leashExports = new Set(Object.keys(await import("leash")));

/** Why a piece a sample waits on is not there yet, or null when it is. */
export function missing(piece: string): string | null {
  if (piece === "cli") {
    const bin = packageJson.bin?.leash;
    return bin !== undefined && existsSync(join(root, bin)) ? null : "the `leash` bin is not built";
  }
  if (piece.startsWith("leash/")) {
    const entry = packageJson.exports[`./${piece.slice("leash/".length)}`];
    const target = typeof entry === "string" ? entry : entry?.import;
    if (target === undefined) return `package.json exports no \`${piece}\``;
    return existsSync(join(root, target)) ? null : `\`${piece}\` is not built (${target})`;
  }
  return leashExports.has(piece) ? null : `\`leash\` does not export \`${piece}\``;
}

/** Why a sample cannot run here, or null. */
export function blocker(sample: Sample): string | null {
  const waiting = sample.waitsOn.map(missing).filter((reason) => reason !== null);
  if (waiting.length > 0) return `waits on ${sample.waitsOn.join(", ")}: ${waiting.join("; ")}`;
  const unset = sample.needs.filter((name) => (process.env[name] ?? "") === "");
  if (unset.length > 0) return `needs ${unset.join(", ")}, which is not set`;
  return null;
}

/** Whether a process of this id is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

// One folder per test run: engineers run the suite at the same moment in the same checkout. Folders
// left by a run that was killed are removed, since stray .ts files in the checkout trouble the linter.
const runs = join(root, ".tmp", "guide");
for (const name of existsSync(runs) ? readdirSync(runs) : []) {
  const pid = Number(/^run-(\d+)-/.exec(name)?.[1]);
  if (Number.isSafeInteger(pid) && pid !== process.pid && !alive(pid))
    rmSync(join(runs, name), { recursive: true, force: true });
}

/**
 * A folder of this test file's own holding every sample as a file, removed after the file's tests.
 * Called once per test file.
 */
export function writeSamples(): string {
  const folder = join(runs, `run-${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(folder, { recursive: true });
  after(() => rmSync(folder, { recursive: true, force: true }));
  for (const sample of samples) {
    writeFileSync(join(folder, sample.file), sample.code);
    const compiled = esbuild.transformSync(sample.code, {
      loader: "ts",
      format: "esm",
      target: `node${process.versions.node}`,
      sourcefile: sample.file,
    });
    writeFileSync(compiledSample(folder, sample), compiled.code);
  }
  return folder;
}

/** How a child process ended. */
export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs node with these arguments; never rejects. */
export function node(args: string[], cwd: string): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd, timeout: SAMPLE_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NODE_NO_WARNINGS: "1" } },
      (error, stdout, stderr) => {
        const failure = error as (Error & { code?: unknown; signal?: NodeJS.Signals | null }) | null;
        const code = failure === null ? 0 : typeof failure.code === "number" ? failure.code : null;
        resolve({
          code,
          signal: failure?.signal ?? null,
          stdout,
          stderr: failure !== null && code === null ? `${stderr}\n${failure.message}` : stderr,
        });
      },
    );
  });
}
