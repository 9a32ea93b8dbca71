// The test runner (scripts/test.mjs) run for real in a child process, on a folder of small test files
// written for the test, so that what it does with files, PostgreSQL and Chromium can be watched.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { TestContext } from "node:test";
import { root } from "../cli/cli-helpers.js";

/** The runner's script. */
export const runnerScript = join(root, "scripts", "test.mjs");

/** What a run of the runner left. */
export interface RunnerResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** The last line printed: the one that says what was skipped. */
  lastLine: string;
}

/** A file URL of a module of this repository, for the test files written here to import. */
export function repositoryModule(path: string): string {
  return pathToFileURL(join(root, path)).href;
}

/** A fresh folder of test files (`name` to source), removed after the test. */
export function testFolder(t: TestContext, files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), "leash-runner-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  for (const [name, source] of Object.entries(files)) writeFileSync(join(folder, name), source);
  return folder;
}

/** The environment of a run on `folder`: this process's, without CI or DATABASE_URL unless `env` gives them. */
function runnerEnvironment(folder: string, env: Record<string, string>): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { ...process.env, LEASH_TEST_FOLDER: folder, LEASH_TEST_JOBS: "2" };
  delete environment.CI;
  delete environment.DATABASE_URL;
  return { ...environment, ...env };
}

/**
 * Starts the runner on `folder`; `result` resolves once it has exited, `output()` is what it has
 * printed so far (standard output and error together).
 */
export function startRunner(
  folder: string,
  env: Record<string, string> = {},
): { pid: number; result: Promise<RunnerResult>; output: () => string; kill: (signal: NodeJS.Signals) => void } {
  const child = spawn(process.execPath, [runnerScript], {
    cwd: root,
    env: runnerEnvironment(folder, env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const result = new Promise<RunnerResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status, signal) => {
      const lines = output.split("\n").filter((line) => line !== "");
      resolve({ status, signal, output, lastLine: lines.at(-1) ?? "" });
    });
  });
  return { pid: child.pid as number, result, output: () => output, kill: (signal) => child.kill(signal) };
}

/** Runs the runner on `folder` to its end. */
export function runRunner(folder: string, env: Record<string, string> = {}): Promise<RunnerResult> {
  return startRunner(folder, env).result;
}

/** Whether a process with this id is alive (a zombie, ended but not yet reaped, counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Polls `probe` every 50 ms until it is true, failing after `timeoutMs` with `what`. */
export async function waitUntil(what: string, probe: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`Waited ${timeoutMs} ms for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The source of a PostgreSQL test file (written with test/postgres/database.ts's `withPostgres`) that
 * queries the database it is given and writes its DATABASE_URL and process id to `marker`; with
 * `hang`, its test then never ends.
 */
export function postgresFile(marker: string, hang = false): string {
  return `
    import { test } from "node:test";
    import { writeFileSync } from "node:fs";
    import { sql, withPostgres } from ${JSON.stringify(repositoryModule("test/postgres/database.ts"))};
    withPostgres("the runner's database", (url) => {
      test("reaches the database", async () => {
        const { rows } = await sql(url, "SELECT 40 + 2 AS answer");
        if (rows[0].answer !== 42) throw new Error("no answer");
        writeFileSync(${JSON.stringify(marker)}, JSON.stringify({ url, pid: process.pid }));
        ${hang ? "await new Promise(() => setInterval(() => {}, 1000));" : ""}
      });
    });
  `;
}
