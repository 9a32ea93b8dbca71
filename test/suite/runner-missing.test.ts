// When PostgreSQL's binaries or Chromium are missing the test runner skips the tests that need them
// (fails them in CI), and its last line says what was skipped, why, and what installs it; with
// Chromium installed it starts one browser for the whole run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { postgresFile, repositoryModule, runRunner, testFolder } from "./runner-support.js";

const browserSupport = repositoryModule("test/inbox-browser/support.ts");

/** A test file of browser tests, as the inbox's are written. */
const browserFile = `
  import { useBrowser, eachStore } from ${JSON.stringify(browserSupport)};
  const browser = useBrowser();
  eachStore("a page opens", async () => {
    const context = await browser().newContext();
    await context.close();
  });
`;

/** Whether Debian's chromium is installed, where the runner and the browser tests look for it. */
const chromiumInstalled = spawnSync("bash", ["-c", "command -v chromium"]).status === 0;

test(
  "with Chromium installed the runner starts one browser for the run, the browser tests use it, and it is gone after the run",
  { skip: chromiumInstalled ? false : "chromium is not installed here" },
  async (t) => {
    const marks = testFolder(t, {});
    const marker = join(marks, "endpoint.txt");
    const files = testFolder(t, {
      "browser.test.ts": `
        import { test } from "node:test";
        import { writeFileSync } from "node:fs";
        import { useBrowser, freshPage } from ${JSON.stringify(browserSupport)};
        const browser = useBrowser();
        test("a page of the run's browser shows a text", async (t) => {
          const page = await freshPage(t, browser());
          await page.setContent("<p>shared</p>");
          if ((await page.textContent("p")) !== "shared") throw new Error("no text");
          writeFileSync(${JSON.stringify(marker)}, process.env.LEASH_TEST_BROWSER_ENDPOINT ?? "");
        });
      `,
    });
    const result = await runRunner(files, { LEASH_PG_BIN: "/nonexistent/postgresql/bin" });
    assert.equal(result.status, 0, result.output);
    const endpoint = readFileSync(marker, "utf8");
    assert.match(endpoint, /^ws:\/\/127\.0\.0\.1:\d+\//);
    await assert.rejects(chromium.connect(endpoint, { timeout: 10_000 }), "the run's browser is closed");
  },
);

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
