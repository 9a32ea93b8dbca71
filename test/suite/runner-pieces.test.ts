// The test runner brings what the tests need: a throwaway PostgreSQL when DATABASE_URL is unset and
// the server binaries exist (stopped at the end, also when the run is stopped), and when PostgreSQL
// or Chromium is missing its last line says what was skipped, why, and what installs it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { spawnSync } from "node:child_process";
import { alive, repositoryModule, runRunner, startRunner, testFolder, waitUntil } from "./runner-support.js";

const database = repositoryModule("test/postgres/database.ts");
const browserSupport = repositoryModule("test/inbox-browser/support.ts");
/** Whether the server binaries are where the runner looks (Debian's folder, or PATH). */
const serverBinaries =
  spawnSync("bash", ["-c", "compgen -G '/usr/lib/postgresql/*/bin/initdb' || command -v initdb"]).status === 0;
const noBinaries = "PostgreSQL's server binaries are not installed here";

/** A PostgreSQL test file that writes the DATABASE_URL it was given to `marker`, then, if `hang`, never ends. */
function postgresFile(marker: string, hang = false): string {
  return `
    import { test } from "node:test";
    import { writeFileSync } from "node:fs";
    import { sql, withPostgres } from ${JSON.stringify(database)};
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

test(
  "a run stopped by TERM ends its test files' processes and stops its PostgreSQL",
  { skip: serverBinaries ? false : noBinaries },
  async (t) => {
    const marks = testFolder(t, {});
    const marker = join(marks, "url.json");
    const files = testFolder(t, { "hang.test.ts": postgresFile(marker, true) });
    const runner = startRunner(files);
    await waitUntil("the test file to reach the database", () => existsSync(marker));
    const { pid } = JSON.parse(readFileSync(marker, "utf8")) as { pid: number };
    const server = startedServer(runner.output());
    runner.kill("SIGTERM");
    const result = await runner.result;
    assert.equal(result.status, 143, result.output);
    assert.match(result.output, /Stopped by SIGTERM before every file ran\./);
    await waitUntil("the test file's process to end", () => !alive(pid), 10_000);
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

/** A test file of browser tests, as the inbox's are written. */
const browserFile = `
  import { useBrowser, eachStore } from ${JSON.stringify(browserSupport)};
  const browser = useBrowser();
  eachStore("a page opens", async () => {
    const context = await browser().newContext();
    await context.close();
  });
`;

const missing = { LEASH_PG_BIN: "/nonexistent/postgresql/bin", CHROMIUM_PATH: "/nonexistent/chromium" };

test("without PostgreSQL's binaries and without Chromium the tests that need them are skipped, and the last line names both and how to install them", async (t) => {
  const marks = testFolder(t, {});
  const files = testFolder(t, {
    "pg.test.ts": postgresFile(join(marks, "url.json")),
    "browser.test.ts": browserFile,
    "plain.test.ts": `import { test } from "node:test"; test("runs", () => {});\n`,
  });
  const result = await runRunner(files, missing);
  assert.equal(result.status, 0, result.output);
  assert.match(result.output, /Tests: 4: 1 passed, 0 failed, 3 skipped/);
  assert.equal(
    result.lastLine,
    "Skipped: the PostgreSQL tests (1 test: no PostgreSQL server binaries; install them with `apt-get install -y postgresql`); " +
      "the browser tests (2 tests: no Chromium; install it with `apt-get install -y chromium`).",
  );
  assert.equal(existsSync(join(marks, "url.json")), false);
});

test("in CI (CI=true) missing PostgreSQL binaries and a missing Chromium fail the run instead", async (t) => {
  const files = testFolder(t, { "pg.test.ts": postgresFile("/nonexistent/marker"), "browser.test.ts": browserFile });
  const result = await runRunner(files, { ...missing, CI: "true" });
  assert.equal(result.status, 1, result.output);
  assert.match(result.output, /FAILED \S*pg\.test\.ts/);
  assert.match(result.output, /FAILED \S*browser\.test\.ts/);
});

test("a run that needs no PostgreSQL starts none and says nothing of it", async (t) => {
  const files = testFolder(t, { "plain.test.ts": `import { test } from "node:test"; test("runs", () => {});\n` });
  const result = await runRunner(files, missing);
  assert.equal(result.status, 0, result.output);
  assert.doesNotMatch(result.output, /PostgreSQL/);
  assert.equal(result.lastLine, "Skipped: nothing.");
});
