// Runs one test file as `node --test` does for each of its files (a process of its own, tsx loading
// the TypeScript, a time limit: on Node 20 for the whole file, on later Nodes for each test), with the
// spec output kept for printing in one piece and the counts written by summary-reporter.mjs. Each
// file leads a process group of its own, so that a run stopped part way (Ctrl-C, a CI timeout) ends
// every process the file started, and whatever the file leaves running when it ends is ended too.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * The limit `--test-timeout` sets: Node 20 applies it to the whole file, which a long file on a loaded
 * machine can pass without any test hanging, so there it is 10 minutes; later Nodes apply it to each
 * test, and 120 s is already long for one.
 */
const TIMEOUT_MS = Number(process.versions.node.split(".")[0]) <= 20 ? 600_000 : 120_000;

/** GNU time, when the machine has it: it gives each file's CPU time (its own and its children's). */
const TIME = "/usr/bin/time";

/**
 * Starts `file` with `environment`, writing its summary to `summaryFile`. Returns `{ done, stop }`:
 * `done` resolves with `{ file, status, output, summary, seconds, cpuSeconds }` once the file's
 * process has exited; `stop(signal)` signals its whole process group.
 */
export function runTestFile({ root, file, environment, summaryFile, timesFile }) {
  const reporter = join(root, "scripts", "test-runner", "summary-reporter.mjs");
  const node = [
    "--import",
    "tsx",
    "--test",
    `--test-timeout=${TIMEOUT_MS}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    `--test-reporter=${reporter}`,
    `--test-reporter-destination=${summaryFile}`,
    file,
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
  child.stdout.on("data", (chunk) => chunks.push(chunk));
  child.stderr.on("data", (chunk) => chunks.push(chunk));
  const done = new Promise((resolve) => {
    child.on("error", (error) => chunks.push(Buffer.from(`could not start: ${error.message}\n`)));
    child.on("close", (code, signal) => {
      const seconds = Number(process.hrtime.bigint() - began) / 1e9;
      // What the file started and left running (a child a test did not stop, or one a TERM did not
      // end) goes with it, so that no process outlives the run or holds what the next file needs.
      stop("SIGKILL");
      resolve({
        file,
        status: signal ?? code,
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
