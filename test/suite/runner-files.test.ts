// The test runner runs files several at a time, a file marked `test-runs-alone` while no other runs,
// and sums up: counts, the failed tests by name, a failing status, and a closing line of skips.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { alive, runRunner, testFolder, waitUntil } from "./runner-support.js";

/** A test file that records when its test began and ended, after waiting until `others` have begun. */
function timedFile(folder: string, name: string, others: string[], firstLine = ""): string {
  return `${firstLine}
import { test } from "node:test";
import { existsSync, writeFileSync } from "node:fs";
test("${name} waits for ${others.join(", ") || "nobody"}", async () => {
  const began = Date.now();
  writeFileSync(${JSON.stringify(join(folder, `${name}.began`))}, "");
  const deadline = Date.now() + 60_000;
  for (const other of ${JSON.stringify(others.map((other) => join(folder, `${other}.began`)))}) {
    while (!existsSync(other)) {
      if (Date.now() > deadline) throw new Error(other + " did not run at the same time");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  writeFileSync(${JSON.stringify(join(folder, `${name}.interval`))}, JSON.stringify([began, Date.now()]));
});
`;
}

test("the runner runs test files at the same time: two files that each wait for the other both pass", async (t) => {
  const folder = testFolder(t, {});
  const files = testFolder(t, {
    "first.test.ts": timedFile(folder, "first", ["second"]),
    "second.test.ts": timedFile(folder, "second", ["first"]),
  });
  const result = await runRunner(files, { LEASH_TEST_JOBS: "2" });
  assert.equal(result.status, 0, result.output);
  assert.match(result.output, /Files: 2, 2 at a time\. Tests: 2: 2 passed, 0 failed, 0 skipped/);
  assert.equal(result.lastLine, "Skipped: nothing.");
});

test("the test files run without NODE_EXTRA_CA_CERTS, which Node 20 would read as each of their processes starts", async (t) => {
  const certificates = testFolder(t, {});
  const files = testFolder(t, {
    "certificates.test.ts": `
      import { test } from "node:test";
      import assert from "node:assert/strict";
      import { spawnSync } from "node:child_process";
      test("no extra certificates here or in a child", () => {
        assert.equal(process.env.NODE_EXTRA_CA_CERTS, undefined);
        const child = spawnSync(process.execPath, ["-p", "process.env.NODE_EXTRA_CA_CERTS ?? 'unset'"], { encoding: "utf8" });
        assert.equal(child.stdout.trim(), "unset");
      });
    `,
  });
  const result = await runRunner(files, { NODE_EXTRA_CA_CERTS: join(certificates, "none.pem") });
  assert.equal(result.status, 0, result.output);
  assert.match(result.output, /Tests: 1: 1 passed, 0 failed/);
});

test("a file marked test-runs-alone runs while no other file runs, and the others still run together", async (t) => {
  const folder = testFolder(t, {});
  const files = testFolder(t, {
    "alone.test.ts": timedFile(folder, "alone", [], "// test-runs-alone: it measures time"),
    "left.test.ts": timedFile(folder, "left", ["right"]),
    "right.test.ts": timedFile(folder, "right", ["left"]),
  });
  const result = await runRunner(files, { LEASH_TEST_JOBS: "3" });
  assert.equal(result.status, 0, result.output);
  const interval = (name: string): [number, number] =>
    JSON.parse(readFileSync(join(folder, `${name}.interval`), "utf8")) as [number, number];
  const alone = interval("alone");
  for (const other of ["left", "right"]) {
    const [began, ended] = interval(other);
    assert.ok(
      ended <= alone[0] || began >= alone[1],
      `${other} ran ${began}-${ended}, alone ran ${alone[0]}-${alone[1]}`,
    );
  }
});

test("the summary counts passed, failed and skipped tests, names each failed test, and the run fails", async (t) => {
  const files = testFolder(t, {
    "mixed.test.ts": `
      import { describe, test } from "node:test";
      describe("a suite", () => {
        test("passes", () => {});
        test("is skipped", { skip: "no gadget on this machine" }, () => {});
      });
      test("passes too", () => {});
      test("todo work", { todo: "later" }, () => {});
    `,
    "broken.test.ts": `
      import { test } from "node:test";
      test("breaks on purpose", () => { throw new Error("the expected breakage\\nsecond line"); });
    `,
  });
  const result = await runRunner(files);
  assert.equal(result.status, 1, result.output);
  assert.match(result.output, /Tests: 5: 2 passed, 1 failed, 1 skipped, 1 todo, 0 cancelled\./);
  assert.match(result.output, /FAILED \S*broken\.test\.ts\n {2}- breaks on purpose: the expected breakage\n/);
  assert.equal(result.lastLine, "Skipped: 1 other test (no gadget on this machine).");
});

test("a file that fails before any test (a bad import) fails the run", async (t) => {
  const files = testFolder(t, { "import.test.ts": `import "./no-such-module.js";\n` });
  const result = await runRunner(files);
  assert.equal(result.status, 1, result.output);
  assert.match(result.output, /FAILED \S*import\.test\.ts/);
});

test("a run that finds no test file fails, naming the folder", async (t) => {
  const files = testFolder(t, { "not-a-test.ts": "export {};\n" });
  const result = await runRunner(files);
  assert.equal(result.status, 1);
  assert.match(result.output, /No test files found under /);
});

test("LEASH_TEST_JOBS that is not a positive integer is refused before any file runs", async (t) => {
  const files = testFolder(t, { "a.test.ts": `import { test } from "node:test"; test("a", () => {});\n` });
  for (const jobs of ["0", "-1", "1.5", "two", "1e3x"]) {
    const result = await runRunner(files, { LEASH_TEST_JOBS: jobs });
    assert.equal(result.status, 2, `${jobs}: ${result.output}`);
    assert.match(result.output, /LEASH_TEST_JOBS must be a positive integer/);
  }
});

test("a file still running after LEASH_TEST_FILE_TIMEOUT_MS is stopped, with every process it started, and fails the run", async (t) => {
  const marks = testFolder(t, {});
  const marker = join(marks, "pids.json");
  const files = testFolder(t, {
    "stuck.test.ts": `
      import { test } from "node:test";
      import { spawn } from "node:child_process";
      import { writeFileSync } from "node:fs";
      test("never ends", async () => {
        const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
        writeFileSync(${JSON.stringify(marker)}, JSON.stringify([process.pid, child.pid]));
        await new Promise(() => setInterval(() => {}, 1000));
      });
    `,
    "quick.test.ts": `import { test } from "node:test"; test("ends", () => {});\n`,
  });
  const result = await runRunner(files, { LEASH_TEST_FILE_TIMEOUT_MS: "8000" });
  assert.equal(result.status, 1, result.output);
  assert.match(result.output, /FAILED \S*stuck\.test\.ts \(still running after 8 s: stopped\)/);
  assert.doesNotMatch(result.output, /FAILED \S*quick\.test\.ts/);
  for (const pid of JSON.parse(readFileSync(marker, "utf8")) as number[]) {
    await waitUntil(`process ${pid} to end`, () => !alive(pid), 10_000);
  }
});
