// The test runner brings its own PostgreSQL: a throwaway server when DATABASE_URL is unset and the
// server binaries exist, stopped at the end, also when the run is stopped; a DATABASE_URL given is
// used as it is. (runner-missing.test.ts: what the runner does when pieces are missing.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { alive, postgresFile, runRunner, startRunner, testFolder, waitUntil } from "./runner-support.js";

/** Whether the server binaries are where the runner looks (Debian's folder, or PATH). */
const serverBinaries =
  spawnSync("bash", ["-c", "compgen -G '/usr/lib/postgresql/*/bin/initdb' || command -v initdb"]).status === 0;
const noBinaries = "PostgreSQL's server binaries are not installed here";

/** The cluster folder and address the runner said it started. */
function startedServer(output: string): { url: string; folder: string } {
  const match = /PostgreSQL for this run: (\S+) in (\S+) \(stopped at the end\)\./.exec(output);
  assert.ok(match !== null, output);
  return { url: match[1] as string, folder: match[2] as string };
}

/** Whether a server answers at `url`. */
async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

test(
  "without DATABASE_URL the runner starts a throwaway PostgreSQL for the tests and stops it at the end",
  { skip: serverBinaries ? false : noBinaries },
  async (t) => {
    const marks = testFolder(t, {});
    const marker = join(marks, "url.json");
    const files = testFolder(t, { "pg.test.ts": postgresFile(marker) });
    const result = await runRunner(files);
    assert.equal(result.status, 0, result.output);
    const server = startedServer(result.output);
    assert.equal((JSON.parse(readFileSync(marker, "utf8")) as { url: string }).url, server.url);
    assert.equal(result.lastLine, "Skipped: nothing.");
    assert.equal(existsSync(server.folder), false, "the cluster's folder is removed");
    assert.equal(await answers(server.url), false, "the server is stopped");
  },
);

/** Whether the marker file holds its whole JSON yet: it exists, empty, for a moment before it is written. */
function writtenWhole(file: string): boolean {
  try {
    JSON.parse(readFileSync(file, "utf8"));
    return true;
  } catch {
    return false;
  }
}

test(
  "a run stopped by TERM ends its test files' processes and stops its PostgreSQL",
  { skip: serverBinaries ? false : noBinaries },
  async (t) => {
    const marks = testFolder(t, {});
    const marker = join(marks, "url.json");
    const files = testFolder(t, { "hang.test.ts": postgresFile(marker, true) });
    const runner = startRunner(files);
    await waitUntil("the test file to reach the database", () => writtenWhole(marker));
    const { pid } = JSON.parse(readFileSync(marker, "utf8")) as { pid: number };
    // Should an assertion below fail, the hanging file's process must not outlive this test.
    t.after(() => {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    });
    const server = startedServer(runner.output());
    runner.kill("SIGTERM");
    const result = await runner.result;
    assert.equal(result.status, 143, result.output);
    assert.match(result.output, /Stopped by SIGTERM before every file ran\./);
    await waitUntil("the test file's process to end", () => !alive(pid), 60_000);
    assert.equal(existsSync(server.folder), false, "the cluster's folder is removed");
    assert.equal(await answers(server.url), false, "the server is stopped");
  },
);

test("a DATABASE_URL given is used as it is: the runner starts no server", async (t) => {
  const url = process.env.DATABASE_URL;
  if (url === undefined || url === "") {
    t.skip("DATABASE_URL is not set, so there is no given server to use");
    return;
  }
  const marks = testFolder(t, {});
  const marker = join(marks, "url.json");
  const files = testFolder(t, { "pg.test.ts": postgresFile(marker) });
  const result = await runRunner(files, { DATABASE_URL: url });
  assert.equal(result.status, 0, result.output);
  assert.doesNotMatch(result.output, /PostgreSQL for this run/);
  assert.equal((JSON.parse(readFileSync(marker, "utf8")) as { url: string }).url, url);
});
