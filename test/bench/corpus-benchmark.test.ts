import assert from "node:assert/strict";
import { after, test } from "node:test";
import { corpusChecksPassed, formatCorpusTable, runCorpusBenchmark } from "../../src/bench/index.js";
import { removeTinyCorpora, tinyCorpus } from "./bench-fixtures.js";

after(removeTinyCorpora);

test("the corpus benchmark runs three planners on a tiny corpus and every check passes", async () => {
  const progress: [number, number, string][] = [];
  const result = await runCorpusBenchmark({
    corpus: tinyCorpus(),
    tasks: 6,
    onProgress: (done, total, label) => progress.push([done, total, label]),
  });

  assert.deepEqual(Object.keys(result).sort(), ["checks", "corpus", "planners", "search"]);
  assert.equal(result.corpus.files, 3);
  assert.equal(result.corpus.tasks, 6);
  assert.ok(result.corpus.chunks >= 5);
  assert.deepEqual(
    result.planners.map((planner) => planner.name),
    ["one_shot", "verify", "verify_3"],
  );
  for (const planner of result.planners) {
    assert.deepEqual(Object.keys(planner).sort(), ["meanCost", "meanToolCalls", "name", "success"]);
    assert.ok(planner.success >= 0 && planner.success <= 1);
  }
  const [oneShot, verify, verifyThree] = result.planners;
  assert.equal(oneShot?.success, result.search.recallAt1);
  assert.equal(oneShot?.meanCost, 1);
  assert.equal(oneShot?.meanToolCalls, 1);
  // A read costs 0.25 on top of the search, and verify_3 reads no more than verify does.
  assert.ok((verify?.meanCost ?? 0) >= 1.25 && (verifyThree?.meanCost ?? 0) <= (verify?.meanCost ?? 0));
  assert.ok((verify?.success ?? 0) >= (oneShot?.success ?? 1));

  assert.deepEqual(result.checks, {
    auditVerified: true,
    everyCallAudited: true,
    deniedWithoutScope: true,
    pausedBeforeWrite: true,
    oneShotEqualsRecallAt1: true,
  });
  assert.equal(corpusChecksPassed(result), true);

  // Three planners, each with and without the scope and writing first: 9 x 6 runs.
  assert.equal(progress.length, 54);
  assert.deepEqual(progress.at(-1)?.slice(0, 2), [54, 54]);

  const table = formatCorpusTable(result);
  assert.match(table, /\| planner \| success \| mean cost \| mean tool calls \|/);
  assert.match(table, /\| verify_3 \|/);
  assert.match(table, /plain search, recall@1/);
  assert.doesNotMatch(table, /\*\*NO\*\*/);
});

test("the same corpus and seed give the same result", async () => {
  const corpus = tinyCorpus();
  const first = await runCorpusBenchmark({ corpus, tasks: 4, seed: 3 });
  const second = await runCorpusBenchmark({ corpus, tasks: 4, seed: 3 });
  assert.deepEqual(
    { ...first, corpus: { ...first.corpus, path: "" } },
    { ...second, corpus: { ...second.corpus, path: "" } },
  );
});

test("a missing corpus folder is refused with a message naming it", async () => {
  await assert.rejects(
    runCorpusBenchmark({ corpus: "/nonexistent/leash-guide" }),
    /\/nonexistent\/leash-guide does not exist/,
  );
});
