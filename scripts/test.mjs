// Runs every test file under test/ (or those whose path contains one of the arguments), each in a
// process of its own as `node --test` does, several at a time, and ends with a summary whose last
// line says what was skipped and why. Before the files run it prepares what they share, once:
// - a throwaway PostgreSQL (.ci/postgres-start.sh) when DATABASE_URL is unset and the server
//   binaries are installed, stopped at the end (also on failure, Ctrl-C and TERM);
// - src/ and test/ compiled to JavaScript, for the child processes the tests start;
// - one headless Chromium that the browser tests connect to.
// Node 20's runner does not discover .ts files by itself, and a runner that finds no file would pass
// while running nothing, so finding none is a failure.
//
// Environment: LEASH_TEST_JOBS (files at a time; default the cores plus one), DATABASE_URL (a server
// to use instead of starting one), CI (missing PostgreSQL or Chromium then fails the tests that need
// them), LEASH_TEST_FILE_TIMEOUT_MS (how long one file may run, default 10 minutes), LEASH_TEST_FOLDER
// (where to look for test files; the runner's own tests use it). NODE_EXTRA_CA_CERTS is not passed on
// to the test files (see main()).
import { availableParallelism } from "node:os";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compileChildren } from "./test-runner/compile-children.mjs";
import { findChromium, launchSharedBrowser } from "./test-runner/shared-browser.mjs";
import { runTestFile } from "./test-runner/run-test-file.mjs";
import { skipLine } from "./test-runner/skip-line.mjs";
import { testFiles } from "./test-runner/test-files.mjs";
import { findPostgresBin, startPostgres } from "./test-runner/throwaway-postgres.mjs";
import { cpuSecondsOfChildren, orderBySeconds, readTimes, writeTimes } from "./test-runner/file-times.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const folder = resolve(process.env.LEASH_TEST_FOLDER || join(root, "test"));
// The test files' paths, and the working folder of every test, are the repository's root.
process.chdir(root);
const began = process.hrtime.bigint();
const inCi = !["", "0", "false"].includes(process.env.CI ?? "");
const jobs = positiveInteger("LEASH_TEST_JOBS", availableParallelism() + 1);
const fileTimeoutMs = positiveInteger("LEASH_TEST_FILE_TIMEOUT_MS", 600_000);
const files = testFiles(root, folder, process.argv.slice(2));
if (files.length === 0) {
  console.error(`No test files found under ${relative(root, folder) || "."}.`);
  process.exit(1);
}

/** Everything started for the run, undone in reverse order at its end, however it ends. */
const cleanups = [];
const running = new Set();
let stoppedBy;
for (const [signal, status] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
]) {
  process.on(signal, () => {
    if (stoppedBy !== undefined) return;
    stoppedBy = { signal, status };
    console.error(`\n${signal}: stopping the ${running.size} running test files, then what the run started.`);
    for (const file of running) file.stop("SIGTERM");
    // A file that has not ended 10 s after the TERM is killed, so that the cleanup still runs.
    setTimeout(() => {
      for (const file of running) file.stop("SIGKILL");
    }, 10_000).unref();
  });
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
} finally {
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.error(`While cleaning up: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
process.exit(stoppedBy?.status ?? exitCode);

async function main() {
  const environment = { ...process.env };
  // Set when this runner itself runs inside a node:test file (its own tests): the files it starts
  // must be test runs of their own, not children reporting to a runner that is not there.
  delete environment.NODE_TEST_CONTEXT;
  // Node 20 reads and parses the whole file NODE_EXTRA_CA_CERTS names as each process starts (about
  // 0.1 s of CPU, and the suite starts a process for every file, run of the bin and fixture); later
  // Nodes read it when a TLS connection first needs it. No test connects outside the machine, so the
  // test processes go without it.
  delete environment.NODE_EXTRA_CA_CERTS;
  const work = mkdtempSync(join(tmpdir(), "leash-test-run-"));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));

  const postgres = await preparePostgres(environment);
  if (stoppedBy !== undefined) return 1;
  const browser = { needed: files.some((file) => file.browser), found: findChromium(environment) !== undefined };
  if (browser.needed && browser.found) {
    const shared = await launchSharedBrowser(root, findChromium(environment)).catch((error) => {
      console.error(`The shared Chromium did not start (each browser test file starts its own): ${error.message}`);
      return undefined;
    });
    if (shared !== undefined) {
      cleanups.push(shared.close);
      environment.LEASH_TEST_BROWSER_ENDPOINT = shared.endpoint;
    }
  }
  // A run inside a run (the runner's own tests) uses the folder the outer run compiled.
  if (!existsSync(environment.LEASH_TEST_COMPILED ?? "")) {
    try {
      const compiled = await compileChildren(root);
      cleanups.push(compiled.remove);
      environment.LEASH_TEST_COMPILED = compiled.folder;
    } catch (error) {
      delete environment.LEASH_TEST_COMPILED;
      console.error(`Compiling the test children failed (they run under tsx instead): ${error.message}`);
    }
  }
  const prepared = Number(process.hrtime.bigint() - began) / 1e9;
  console.log(`Prepared in ${prepared.toFixed(1)} s; running ${files.length} test files, ${jobs} at a time.`);
  if (stoppedBy !== undefined) return 1;

  const timesFile = join(root, ".tmp", "test-times.json");
  const history = readTimes(timesFile);
  const results = await runAll(orderBySeconds(files, history), environment, work);
  if (stoppedBy === undefined && process.env.LEASH_TEST_FOLDER === undefined) {
    mkdirSync(join(root, ".tmp"), { recursive: true });
    // A file that failed may have ended early (a missing build fails the CLI files in seconds): its
    // time says nothing of how long it runs, and recorded it would start that file last next time.
    writeTimes(
      timesFile,
      history,
      results.filter((result) => !failedFile(result)),
    );
  }
  return printSummary(results, postgres, browser);
}

/** Uses DATABASE_URL when set; otherwise starts a throwaway server when a file needs one and the binaries exist. */
async function preparePostgres(environment) {
  if (environment.DATABASE_URL !== undefined && environment.DATABASE_URL !== "") return { state: "given" };
  if (!files.some((file) => file.postgres)) return { state: "unneeded" };
  const bin = findPostgresBin(environment);
  if (bin === undefined) {
    console.error(`No PostgreSQL server binaries: the PostgreSQL tests ${inCi ? "fail (CI=true)" : "are skipped"}.`);
    return { state: "missing" };
  }
  try {
    const server = await startPostgres(root, bin);
    cleanups.push(server.stop);
    environment.DATABASE_URL = server.url;
    console.log(`PostgreSQL for this run: ${server.url} in ${server.folder} (stopped at the end).`);
    return { state: "started" };
  } catch (error) {
    console.error(error.message);
    return { state: "failed" };
  }
}

/** Runs the files `jobs` at a time, a file marked to run alone while no other runs, and prints each as it ends. */
async function runAll(ordered, environment, work) {
  const results = [];
  const queue = [...ordered.filter((file) => !file.alone), ...ordered.filter((file) => file.alone)];
  let next = 0;
  let number = 0;
  await new Promise((finish) => {
    const startMore = () => {
      while (stoppedBy === undefined && next < queue.length && running.size < jobs) {
        const file = queue[next];
        if (file.alone && running.size > 0) break;
        next += 1;
        number += 1;
        const handle = runTestFile({
          root,
          file: file.path,
          environment,
          summaryFile: join(work, `${number}.json`),
          timesFile: join(work, `${number}.time`),
          fileTimeoutMs,
        });
        running.add(handle);
        void handle.done.then((result) => {
          running.delete(handle);
          results.push(result);
          printFile(result, results.length, queue.length);
          startMore();
        });
        if (file.alone) break;
      }
      if (running.size === 0 && (next >= queue.length || stoppedBy !== undefined)) finish();
    };
    startMore();
  });
  return results;
}

function printFile(result, done, total) {
  const cpu = result.cpuSeconds === undefined ? "" : `, ${result.cpuSeconds.toFixed(1)} s CPU`;
  const failed = failedFile(result) ? " FAILED" : "";
  process.stdout.write(`\n# [${done}/${total}] ${result.file}${failed} (${result.seconds.toFixed(1)} s${cpu})\n`);
  process.stdout.write(result.output.endsWith("\n") || result.output === "" ? result.output : `${result.output}\n`);
}

function failedFile(result) {
  return result.status !== 0 || result.summary === undefined || result.summary.failed > 0;
}

/** Prints the totals, the slowest files, the failures, and last the line of what was skipped. */
function printSummary(results, postgres, browser) {
  const totals = { tests: 0, passed: 0, failed: 0, cancelled: 0, todo: 0 };
  const skipped = [];
  for (const result of results) {
    for (const key of Object.keys(totals)) totals[key] += result.summary?.[key] ?? 0;
    for (const skip of result.summary?.skipped ?? []) skipped.push({ file: result.file, ...skip });
  }
  const failedFiles = results.filter(failedFile);
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  const cpu = cpuSecondsOfChildren();
  const slowest = [...results].sort((left, right) => right.seconds - left.seconds).slice(0, 5);
  console.log("\n# Summary");
  console.log(
    `Files: ${results.length}, ${jobs} at a time. Tests: ${totals.tests}: ${totals.passed} passed, ` +
      `${totals.failed} failed, ${skipped.length} skipped, ${totals.todo} todo, ${totals.cancelled} cancelled.`,
  );
  console.log(
    `Time: ${seconds.toFixed(1)} s${cpu === undefined ? "" : `, ${cpu.toFixed(1)} s CPU in the test processes and their children`}.`,
  );
  console.log(`Slowest files: ${slowest.map((result) => `${result.file} ${result.seconds.toFixed(1)} s`).join(", ")}.`);
  for (const result of failedFiles) {
    const names = (result.summary?.failures ?? []).map((failure) => `\n  - ${failure.name}: ${failure.error}`);
    const why =
      result.status === "timed out"
        ? ` (still running after ${fileTimeoutMs / 1000} s: stopped)`
        : result.summary === undefined
          ? ` (exited with ${result.status} before reporting)`
          : "";
    console.log(`FAILED ${result.file}${why}${names.join("")}`);
  }
  if (stoppedBy !== undefined) console.log(`Stopped by ${stoppedBy.signal} before every file ran.`);
  console.log(skipLine(skipped, postgres, browser));
  return failedFiles.length === 0 && stoppedBy === undefined ? 0 : 1;
}

/**
 * The environment variable `name` as a positive integer, or `fallback` when it is unset. Files at a
 * time default to the cores plus one: the tests spend much of their time waiting on their children.
 */
function positiveInteger(name, fallback) {
  const given = process.env[name];
  if (given === undefined || given === "") return fallback;
  const value = Number(given);
  if (!/^[0-9]+$/.test(given) || !Number.isSafeInteger(value) || value < 1) {
    console.error(`${name} must be a positive integer, not ${JSON.stringify(given)}.`);
    process.exit(2);
  }
  return value;
}
