import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeArguments } from "../helpers/node-child.js";
import { repositoryRoot } from "../helpers/repository-root.js";

/** The repository's root. */
export const root = repositoryRoot;

/**
 * The built bin, as `npm install -g leash` would run it. `npm test` builds before it tests.
 * `LEASH_TEST_BIN` points the tests at another build (an earlier commit's, to see a new test fail there).
 */
export const bin = process.env.LEASH_TEST_BIN ?? join(root, "dist", "cli", "main.js");

/** The module tsx registers with `--import`, for the tests that load a TypeScript agent module. */
export const tsxLoader = join(root, "node_modules", "tsx", "dist", "loader.mjs");

/** What a run of the bin left. */
export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Fails with a clear message, rather than with a spawn error, when the bin was not built. */
export function requireBuiltBin(): void {
  if (!existsSync(bin))
    throw new Error(`The CLI tests run the built bin ${bin}, which does not exist: run \`npm run build\` first.`);
}

/**
 * Runs `leash ...args` in a child process, in `cwd`. `tsx` loads the bin under tsx, as an app written
 * in TypeScript runs it to load its agent module.
 */
export function leash(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; tsx?: boolean },
): CliResult {
  requireBuiltBin();
  const loader = options.tsx === true ? ["--import", `file://${tsxLoader}`] : [];
  // LEASH_DEBUG is cleared so that a developer's shell does not change what the tests see.
  const env: NodeJS.ProcessEnv = { ...process.env, LEASH_DEBUG: "", ...options.env };
  const result = spawnSync(process.execPath, [...loader, bin, ...args], {
    cwd: options.cwd,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (result.error !== undefined) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs a TypeScript file of this repository as a program in a child process (a fixture that starts
 * a run, say): compiled once per test run, or under tsx (test/helpers/node-child.ts).
 */
export function runTypeScript(file: string, options: { cwd: string; env?: Record<string, string> }): CliResult {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  const result = spawnSync(process.execPath, nodeArguments(file), {
    cwd: options.cwd,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (result.error !== undefined) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A fresh temporary folder, and a function that removes it. */
export function tempFolder(): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), "leash-cli-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** The stderr of a failed command: exactly one line, in the form `leash: <message> (<code>)`. */
export function errorLine(result: CliResult): { message: string; code: string } {
  const lines = result.stderr.split("\n").filter((line) => line !== "");
  if (lines.length !== 1) throw new Error(`Expected one line on stderr, got ${lines.length}:\n${result.stderr}`);
  const match = /^leash: (.+) \(([a-z_]+)\)$/.exec(lines[0] as string);
  if (match === null) throw new Error(`Expected "leash: <message> (<code>)" on stderr, got: ${lines[0]}`);
  return { message: match[1] as string, code: match[2] as string };
}
