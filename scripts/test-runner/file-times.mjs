// How long each test file took in earlier runs (kept in .tmp/test-times.json, outside git), so that
// the longest start first and the run does not end waiting on one long file started last. A fresh
// clone (CI) has no such record yet: file-seconds.json, beside this file, holds the seconds of a full
// run on a loaded two-core machine, for the order only (a file it does not list is guessed from its size).
import { readFileSync, statSync, writeFileSync } from "node:fs";

/** The seconds each file took when it last ran here, by path, over those of file-seconds.json. */
export function readTimes(path) {
  return { ...readObject(new URL("file-seconds.json", import.meta.url)), ...readObject(path) };
}

function readObject(path) {
  try {
    const times = JSON.parse(readFileSync(path, "utf8"));
    return typeof times === "object" && times !== null && !Array.isArray(times) ? times : {};
  } catch {
    return {};
  }
}

/** Records the seconds of the files that just ran, keeping the others' earlier figures. */
export function writeTimes(path, history, results) {
  const times = { ...history };
  for (const result of results) times[result.file] = Math.round(result.seconds * 10) / 10;
  writeFileSync(path, `${JSON.stringify(times, null, 1)}\n`);
}

/**
 * The files, longest first: by their recorded seconds, or for a file never recorded by a guess from
 * its size (about a second per kilobyte, more for a file that drives a browser or PostgreSQL).
 */
export function orderBySeconds(files, history) {
  const expected = (file) => {
    const recorded = history[file.path];
    if (typeof recorded === "number") return recorded;
    const kilobytes = statSync(file.path).size / 1024;
    return kilobytes * (file.browser ? 4 : 1) * (file.postgres ? 1.5 : 1);
  };
  return [...files].sort((left, right) => expected(right) - expected(left) || left.path.localeCompare(right.path));
}

/**
 * The CPU seconds (user and system) of every child process this one has waited for, and theirs in
 * turn: Linux's cutime and cstime of /proc/self/stat. `undefined` elsewhere.
 */
export function cpuSecondsOfChildren() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // The fields after the command name (which may hold spaces) start at the third.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticksPerSecond = 100;
    return (Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
  } catch {
    return undefined;
  }
}
