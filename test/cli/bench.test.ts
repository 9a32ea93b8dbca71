import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { errorLine, leash, tempFolder } from "./cli-helpers.js";

/** A small corpus of prose, so that the test does not depend on the guide's text. */
function writeCorpus(folder: string): string {
  const corpus = join(folder, "corpus");
  mkdirSync(corpus);
  writeFileSync(
    join(corpus, "workshop.md"),
    [
      "# The workshop",
      "",
      "The mechanic checks the brake pads of every bicycle that comes in for a repair.",
      "A worn chain is replaced before it wears the teeth of the cassette down as well.",
      "Every estimate names the hours of work and the parts that the repair will need.",
      "",
      "## Keys",
      "",
      "Where a customer keeps the spare key is written on the ticket and never told to anyone else.",
    ].join("\n"),
  );
  return corpus;
}

test("bench corpus prints the Markdown table on stdout and progress lines on stderr", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const corpus = writeCorpus(folder.path);
  const table = leash(["bench", "corpus", "--corpus", corpus, "--tasks", "3", "--seed", "7"], { cwd: folder.path });
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /^\| planner \| success \| mean cost \| mean tool calls \|$/m);
  assert.match(table.stderr, /^bench corpus: \d+\/\d+ /m, "plain progress lines where stderr is not a terminal");
  assert.ok(!table.stderr.includes("\r") && !table.stderr.includes("\u001b["), "no bar drawn off a terminal");

  const json = leash(["bench", "corpus", "--corpus", corpus, "--tasks", "3", "--json"], { cwd: folder.path });
  assert.equal(json.status, 0, json.stderr);
  const result = JSON.parse(json.stdout) as { corpus: { tasks: number }; checks: Record<string, boolean> };
  assert.equal(result.corpus.tasks, 3);
  assert.ok(Object.values(result.checks).every(Boolean));
});

test("bench corpus refuses a missing corpus and a task count that is not a number", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const missing = leash(["bench", "corpus", "--corpus", "nowhere"], { cwd: folder.path });
  assert.equal(missing.status, 2);
  assert.equal(errorLine(missing).code, "corpus_not_found");
  const tasks = leash(["bench", "corpus", "--tasks", "many"], { cwd: folder.path });
  assert.equal(tasks.status, 2);
  assert.equal(errorLine(tasks).code, "usage");
});

test("bench corpus without --corpus reads the guide shipped with leash, from any folder", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const result = leash(["bench", "corpus", "--tasks", "3", "--json"], { cwd: folder.path });
  assert.equal(result.status, 0, result.stderr);
  const parsed = JSON.parse(result.stdout) as { corpus: { path: string; files: number; tasks: number } };
  assert.equal(parsed.corpus.tasks, 3);
  assert.ok(parsed.corpus.files >= 10, `the guide has its ten pages and more, not ${parsed.corpus.files}`);
  assert.match(parsed.corpus.path, /[\\/]docs[\\/]guide$/);
  assert.ok(!parsed.corpus.path.startsWith(folder.path), "the corpus is the package's, not the working folder's");
});

test("bench overhead --quick --json measures leash alone: every row ran, none is another framework", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const result = leash(["bench", "overhead", "--quick", "--json"], { cwd: folder.path });
  assert.equal(result.status, 0, result.stderr);
  const parsed = JSON.parse(result.stdout) as { rows: { id: string; group: string; skipped?: string }[] };
  assert.ok(parsed.rows.some((row) => row.id === "bare-loop"));
  assert.ok(parsed.rows.some((row) => row.id === "leash-sqlite"));
  for (const row of parsed.rows) {
    assert.notEqual(row.group, "peer", `${row.id} is a peer framework, which an install does not have`);
    assert.equal(row.skipped, undefined, `${row.id} was skipped: ${row.skipped}`);
  }
});
