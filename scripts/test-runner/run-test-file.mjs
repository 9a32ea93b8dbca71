// Runs one test file in a process of its own, as `node --test` does for each of its files: tsx loads
// the TypeScript, reporters write the spec output (kept for printing in one piece) and the counts of
// summary-reporter.mjs. The file is the process's entry point (`node --import tsx file.test.ts`),
// which saves the second process `node --test` puts in front of every file. The limits: on later
// Nodes `--test-timeout` stops each test at 120 s; Node 20 applies it to nothing in this form, and
// applied it to the whole file under `node --test`, so a file still running after a limit (10 minutes
// by default) is stopped here. Each file leads a process group of its own, so that a run stopped part way (Ctrl-C, a
// CI timeout) ends every process the file started, and whatever the file leaves running when it ends
// is ended too.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

/** How long one test may take (later Nodes). */
const TEST_TIMEOUT_MS = 120_000;

/** GNU time, when the machine has it: it gives each file's CPU time (its own and its children's). */
const TIME = "/usr/bin/time";

/**
 * Starts `file` with `environment`, writing its summary to `summaryFile`, and stops it if it runs
 * longer than `fileTimeoutMs`. Returns `{ done, stop }`:
 * `done` resolves with `{ file, status, output, summary, seconds, cpuSeconds }` once the file's
 * process has exited; `stop(signal)` signals its whole process group.
 */
export function runTestFile({ root, file, environment, summaryFile, timesFile, fileTimeoutMs }) {
  const reporter = join(root, "scripts", "test-runner", "summary-reporter.mjs");
  const twin = compiledTwin(environment.LEASH_TEST_COMPILED, file);
  const node = [
    ...(twin === undefined ? ["--import", "tsx"] : []),
    `--test-timeout=${TEST_TIMEOUT_MS}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    `--test-reporter=${reporter}`,
    `--test-reporter-destination=${summaryFile}`,
    twin ?? file,
  ];
  const timed = existsSync(TIME);
  const [command, args] = timed
    ? [TIME, ["-f", "%e %U %S", "-o", timesFile, process.execPath, ...node]]
    : [process.execPath, node];
  const began = process.hrtime.bigint();
  const child = spawn(command, args, {
    cwd: root,
    env: environment,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const chunks = [];
  let timedOut = false;
  const watchdog = setTimeout(() => {
    timedOut = true;
    chunks.push(Buffer.from(`\nThe file was still running after ${fileTimeoutMs / 1000} s: stopped.\n`));
    stop("SIGKILL");
  }, fileTimeoutMs);
  child.stdout.on("data", (chunk) => chunks.push(chunk));
  child.stderr.on("data", (chunk) => chunks.push(chunk));
  const done = new Promise((resolve) => {
    child.on("error", (error) => chunks.push(Buffer.from(`could not start: ${error.message}\n`)));
    child.on("close", (code, signal) => {
      clearTimeout(watchdog);
      const seconds = Number(process.hrtime.bigint() - began) / 1e9;
      // What the file started and left running (a child a test did not stop, or one a TERM did not
      // end) goes with it, so that no process outlives the run or holds what the next file needs.
      stop("SIGKILL");
      resolve({
        file,
        status: timedOut ? "timed out" : (signal ?? code),
        output: Buffer.concat(chunks).toString("utf8"),
        summary: readSummary(summaryFile),
        seconds,
        cpuSeconds: timed ? readCpuSeconds(timesFile) : undefined,
      });
      rmSync(summaryFile, { force: true });
      rmSync(timesFile, { force: true });
    });
  });
  const stop = (signal) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  return { done, stop };
}

/**
 * The compiled JavaScript of a test file in the run's compiled folder (see compile-children.mjs), or
 * `undefined` without one (then the file runs under tsx). Loading tsx's hooks and having them look up
 * each of a file's few hundred modules costs about a second of CPU per file; the compiled folder is
 * laid out as the repository is, so a file's paths built from `import.meta.url` still resolve.
 */
function compiledTwin(folder, file) {
  if (folder === undefined || folder === "" || process.env.LEASH_TEST_UNDER_TSX === "1") return undefined;
  const twin = join(folder, file.replace(/\.ts$/, ".js"));
  return existsSync(twin) ? twin : undefined;
}

function readSummary(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

/** User plus system seconds from GNU time's `%e %U %S` (its last line; earlier ones say why a command failed). */
function readCpuSeconds(path) {
  try {
    const last = readFileSync(path, "utf8").trim().split("\n").at(-1) ?? "";
    const [, user, system] = last.split(" ").map(Number);
    return Number.isFinite(user) && Number.isFinite(system) ? user + system : undefined;
  } catch {
    return undefined;
  }
}
