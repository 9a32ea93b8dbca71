// A TypeScript module started as a program by a test runs compiled (plain `node file.js`) when the
// test run compiled the repository, and under tsx when it did not (a test file run alone).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../cli/cli-helpers.js";
import { compiledTwin, nodeArguments } from "../helpers/node-child.js";
import { repositoryModule, runRunner, testFolder } from "./runner-support.js";

const fixture = join(root, "test", "fixtures", "print-how-run.ts");

/** Runs the fixture with `nodeArguments` as this process's environment gives them, and parses what it printed. */
function runFixture(): {
  arguments: string[];
  printed: { execArgv: string[]; file: string; canonical: string; argument: string };
} {
  const args = nodeArguments(fixture);
  const result = spawnSync(process.execPath, [...args, "ok"], { cwd: root, encoding: "utf8", timeout: 60_000 });
  assert.equal(result.status, 0, result.stderr);
  return { arguments: args, printed: JSON.parse(result.stdout) };
}

test("without a compiled folder a TypeScript module runs under tsx, and runs the repository's code", () => {
  const saved = process.env.LEASH_TEST_COMPILED;
  delete process.env.LEASH_TEST_COMPILED;
  try {
    assert.equal(compiledTwin(fixture), undefined);
    const { arguments: args, printed } = runFixture();
    assert.equal(args[0], "--import");
    assert.match(args[1] ?? "", /tsx/);
    assert.equal(printed.file, fixture);
    assert.equal(printed.canonical, '{"a":[true,null],"b":1}');
    assert.equal(printed.argument, "ok");
  } finally {
    if (saved !== undefined) process.env.LEASH_TEST_COMPILED = saved;
  }
});

test("a compiled folder that lacks the module, or a module outside the repository, falls back to tsx", (t) => {
  const saved = process.env.LEASH_TEST_COMPILED;
  const empty = testFolder(t, {});
  process.env.LEASH_TEST_COMPILED = empty;
  try {
    assert.equal(compiledTwin(fixture), undefined);
    assert.deepEqual(nodeArguments(fixture).slice(0, 1), ["--import"]);
    assert.equal(compiledTwin(join(empty, "elsewhere.ts")), undefined);
    assert.equal(compiledTwin(join(root, "..", "outside.ts")), undefined);
  } finally {
    if (saved === undefined) delete process.env.LEASH_TEST_COMPILED;
    else process.env.LEASH_TEST_COMPILED = saved;
  }
});

test("a module named by its path in the compiled folder, as a compiled module's import.meta.url gives it, runs as the twin beside it", (t) => {
  const saved = process.env.LEASH_TEST_COMPILED;
  const compiled = testFolder(t, {});
  mkdirSync(join(compiled, "test", "fixtures"), { recursive: true });
  const twin = join(compiled, "test", "fixtures", "print-how-run.js");
  writeFileSync(twin, "");
  process.env.LEASH_TEST_COMPILED = compiled;
  try {
    const linked = join(compiled, "test", "fixtures", "print-how-run.ts");
    assert.equal(compiledTwin(linked), twin);
    assert.deepEqual(nodeArguments(linked), [twin]);
    assert.equal(compiledTwin(fixture), twin);
    assert.equal(compiledTwin(join(compiled, "test", "fixtures", "missing.ts")), undefined);
    assert.deepEqual(nodeArguments(join(compiled, "test", "fixtures", "missing.ts")).slice(0, 1), ["--import"]);
  } finally {
    if (saved === undefined) delete process.env.LEASH_TEST_COMPILED;
    else process.env.LEASH_TEST_COMPILED = saved;
  }
});

test("in a run of the test runner, a TypeScript module starts as compiled JavaScript without tsx, and still runs the repository's code", async (t) => {
  const folder = testFolder(t, {
    "child.test.ts": `
      import { test } from "node:test";
      import assert from "node:assert/strict";
      import { spawnSync } from "node:child_process";
      import { nodeArguments } from ${JSON.stringify(repositoryModule("test/helpers/node-child.ts"))};
      test("the fixture runs compiled", () => {
        const args = nodeArguments(${JSON.stringify(fixture)});
        assert.equal(args.length, 1, String(args));
        assert.ok(args[0].startsWith(process.env.LEASH_TEST_COMPILED + "/"), String(args));
        const linked = process.env.LEASH_TEST_COMPILED + "/test/fixtures/print-how-run.ts";
        assert.deepEqual(nodeArguments(linked), args);
        const result = spawnSync(process.execPath, [...args, "ok"], { encoding: "utf8" });
        assert.equal(result.status, 0, result.stderr);
        const printed = JSON.parse(result.stdout);
        assert.deepEqual(printed.execArgv, []);
        assert.ok(printed.file.endsWith("/test/fixtures/print-how-run.js"), printed.file);
        assert.equal(printed.canonical, '{"a":[true,null],"b":1}');
        assert.equal(printed.argument, "ok");
      });
    `,
  });
  const result = await runRunner(folder);
  assert.equal(result.status, 0, result.output);
  assert.match(result.output, /Tests: 1: 1 passed, 0 failed/);
});
