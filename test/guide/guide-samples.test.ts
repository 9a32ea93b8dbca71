// Runs every TypeScript sample of the user guide (docs/guide/*.md) as a real program, so that a page
// whose sample stops being true fails here: each compiled by tsx's esbuild and run in a child process with `node`, from a
// scratch directory of its own, which must exit 0 (how blocks are marked: guide-samples.ts). The
// guide's index and links are checked here too; guide-typecheck.test.ts type-checks the samples.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { blocker, compiledSample, guide, inCi, node, pages, samples, writeSamples } from "./guide-samples.js";

const folder = writeSamples();

const waitingReport: string[] = [];
after(() => {
  if (waitingReport.length > 0) {
    process.stderr.write(
      `\nguide samples that did not run:\n${waitingReport.map((line) => `  - ${line}`).join("\n")}\n`,
    );
  }
});

test("the guide has pages, and every page but the index has a sample that runs", () => {
  assert.ok(pages.includes("README.md"), "docs/guide/README.md is the guide's index");
  for (const page of pages.filter((name) => name !== "README.md")) {
    assert.ok(
      samples.some((sample) => sample.page === page),
      `${page} has at least one runnable ts sample`,
    );
  }
});

test("the index links every page of the guide, and every link between pages leads to a page", () => {
  const index = readFileSync(join(guide, "README.md"), "utf8");
  for (const page of pages.filter((name) => name !== "README.md"))
    assert.ok(index.includes(`](${page})`), `README.md links ${page}`);
  for (const page of pages) {
    for (const [, target] of readFileSync(join(guide, page), "utf8").matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/i.test(target ?? "")) continue; // a page elsewhere, such as a specification
      assert.ok(pages.includes(target ?? ""), `${page} links ${target}, which is not a page of the guide`);
    }
  }
});

test("the guide's index lists every error code", async () => {
  const { ERROR_CODES } = await import("leash");
  const index = readFileSync(join(guide, "README.md"), "utf8");
  for (const code of ERROR_CODES) assert.ok(index.includes(`\`${code}\``), `README.md names the error code ${code}`);
});

describe("guide samples", { concurrency: Math.max(2, Math.min(8, availableParallelism())) }, () => {
  for (const sample of samples) {
    const name = `${sample.page} sample ${sample.number} (line ${sample.line})`;
    test(name, async (context) => {
      const reason = blocker(sample);
      if (reason !== null) {
        if (inCi) assert.fail(`${name} ${reason}; in CI every sample must run.`);
        waitingReport.push(`${name}: ${reason}`);
        context.diagnostic(`NOT RUN: ${reason}`);
        context.skip(reason);
        return;
      }
      const cwd = mkdtempSync(join(tmpdir(), "leash-guide-"));
      try {
        const result = await node([compiledSample(folder, sample)], cwd);
        const output = `--- stdout\n${result.stdout}--- stderr\n${result.stderr}`;
        assert.equal(result.code, 0, `${name} exited with ${result.code ?? result.signal}\n${output}`);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    });
  }
});
