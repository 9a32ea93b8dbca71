import type { CorpusBenchmarkResult } from "./corpus-benchmark.js";

const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
const yesNo = (passed: boolean): string => (passed ? "yes" : "**NO**");

/**
 * The corpus benchmark as Markdown: the planners' table with plain search's recall@1 beside it, then
 * the safety checks.
 */
export function formatCorpusTable(result: CorpusBenchmarkResult): string {
  const { corpus, search, planners, checks } = result;
  const lines = [
    `Corpus: ${corpus.files} Markdown files, ${corpus.chunks} chunks of at most ${corpus.chunkSize} characters, ` +
      `${corpus.tasks} tasks (seed ${corpus.seed}); BM25 (k1 1.2, b 0.75), ${search.hits} hits per search.`,
    "",
    "| planner | success | mean cost | mean tool calls |",
    "| --- | ---: | ---: | ---: |",
    ...planners.map(
      (row) =>
        `| ${row.name} | ${percent(row.success)} | ${row.meanCost.toFixed(2)} | ${row.meanToolCalls.toFixed(2)} |`,
    ),
    `| plain search, recall@1 | ${percent(search.recallAt1)} | | |`,
    "",
    `Plain search finds the right chunk among the first 3 hits for ${percent(search.recallAt3)} of the tasks, ` +
      `among all ${search.hits} for ${percent(search.recallAtHits)}.`,
    "",
    "| check | passed |",
    "| --- | :---: |",
    `| one_shot's success equals plain search's recall@1 | ${yesNo(checks.oneShotEqualsRecallAt1)} |`,
    `| every run's audit chain verified | ${yesNo(checks.auditVerified)} |`,
    `| every tool call had its tool_started and tool_ended records | ${yesNo(checks.everyCallAudited)} |`,
    `| without corpus:read, every action of every run was denied (scope_denied) and no tool ran | ${yesNo(checks.deniedWithoutScope)} |`,
    `| with a write tool and no approver, every run paused before writing | ${yesNo(checks.pausedBeforeWrite)} |`,
  ];
  return lines.join("\n") + "\n";
}

/** Whether every check of the corpus benchmark passed. */
export function corpusChecksPassed(result: CorpusBenchmarkResult): boolean {
  return Object.values(result.checks).every((passed) => passed);
}
