import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { readCorpus } from "../../src/bench/corpus-files.js";
import { pickTasks } from "../../src/bench/corpus-tasks.js";
import { chunkMarkdown } from "../../src/bench/markdown-chunks.js";
import { removeTinyCorpora, tinyCorpus } from "./bench-fixtures.js";

after(removeTinyCorpora);

describe("chunkMarkdown", () => {
  const files = readCorpus(tinyCorpus());

  test("reads only the Markdown files of the folder, recursively, in path order", () => {
    assert.deepEqual(
      files.map((file) => file.path),
      ["guide/approvals.md", "guide/audit.md", "limits.md"],
    );
  });

  test("makes chunks of at most the chunk size, each a trimmed slice of its source", () => {
    for (const file of files) {
      const chunks = chunkMarkdown(file.path, file.text);
      assert.ok(chunks.length > 0);
      for (const chunk of chunks) {
        assert.ok(chunk.text.length <= 500, `a chunk of ${chunk.text.length} characters`);
        assert.equal(chunk.text, file.text.slice(chunk.start, chunk.end));
        assert.equal(chunk.text, chunk.text.trim());
        assert.match(chunk.id, /^[0-9a-f]{64}$/);
      }
    }
  });

  test("gives the same ids for the same corpus, and different ids to different chunks", () => {
    const first = files.flatMap((file) => chunkMarkdown(file.path, file.text).map((chunk) => chunk.id));
    const second = files.flatMap((file) => chunkMarkdown(file.path, file.text).map((chunk) => chunk.id));
    assert.deepEqual(first, second);
    assert.equal(new Set(first).size, first.length);
  });

  test("splits at headings first, and never at a '#' line inside a code fence", () => {
    const limits = files.find((file) => file.path === "limits.md");
    assert.ok(limits !== undefined);
    const chunks = chunkMarkdown(limits.path, limits.text);
    assert.ok(chunks.some((chunk) => chunk.text.startsWith("## Costs")));
    assert.ok(!chunks.some((chunk) => chunk.text.startsWith("# a comment")));
  });

  test("cuts a paragraph with no sentence end by words, and a single over-long word by characters", () => {
    const words = chunkMarkdown("words.md", "word ".repeat(300));
    assert.ok(words.length >= 3 && words.every((chunk) => chunk.text.length <= 500 && !chunk.text.includes("wor d")));
    const long = chunkMarkdown("long.md", "x".repeat(1200), 500);
    assert.deepEqual(
      long.map((chunk) => chunk.text.length),
      [500, 500, 200],
    );
  });
});

describe("pickTasks", () => {
  const files = readCorpus(tinyCorpus());
  const chunks = files.flatMap((file) => chunkMarkdown(file.path, file.text));

  test("picks prose sentences found in exactly one chunk, each query the first half of its sentence", () => {
    const tasks = pickTasks(files, chunks, 100, 7);
    assert.ok(tasks.length >= 5);
    for (const task of tasks) {
      assert.ok(task.sentence.startsWith(task.query));
      const holding = chunks.filter((chunk) => chunk.text.includes(task.sentence));
      assert.deepEqual(
        holding.map((chunk) => chunk.id),
        [task.chunkId],
      );
      const words = task.sentence.split(/\s+/).length;
      assert.equal(task.query.split(/\s+/).length, Math.ceil(words / 2));
      assert.ok(!task.sentence.includes("comment inside a code block"));
    }
  });

  test("draws the same sample from the same seed, and another from another seed", () => {
    const queries = (seed: number): string[] => pickTasks(files, chunks, 4, seed).map((task) => task.query);
    assert.deepEqual(queries(1), queries(1));
    assert.notDeepEqual(queries(1), queries(2));
  });
});
