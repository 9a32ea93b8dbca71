import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Planner, RunState, Tool } from "../index.js";
import { Agent, MemoryAuditSink, Policy } from "../index.js";
import {
  everyActionDenied,
  auditVerified,
  everyCallAudited,
  everyRunPausedBeforeWrite,
  recordsByRun,
} from "./corpus-checks.js";
import { readCorpus } from "./corpus-files.js";
import { corpusPlanners, writeFirst } from "./corpus-planners.js";
import type { CorpusTask } from "./corpus-tasks.js";
import { pickTasks } from "./corpus-tasks.js";
import { CORPUS_SCOPE, corpusTools, NOTES_SCOPE } from "./corpus-tools.js";
import { chunkMarkdown, DEFAULT_CHUNK_SIZE } from "./markdown-chunks.js";
import type { ProgressCallback } from "./progress.js";
import { noProgress } from "./progress.js";
import { DEFAULT_HITS, SearchIndex } from "./search-index.js";

/** Options of {@link runCorpusBenchmark}. */
export interface CorpusBenchmarkOptions {
  /** The folder of Markdown to search; default {@link defaultCorpus}, leash's own guide. */
  corpus?: string;
  /** How many tasks; default 82 (12 with `quick`). */
  tasks?: number;
  /** The seed of the task sample; default {@link DEFAULT_CORPUS_SEED}. */
  seed?: number;
  /** The chunk size in characters; default 500. */
  chunkSize?: number;
  /** How many ranked ids `search` returns; default 10. */
  hits?: number;
  /** Fewer tasks, for tests. */
  quick?: boolean;
  onProgress?: ProgressCallback;
}

/** One planner's row of the table. */
export interface CorpusPlannerResult {
  name: string;
  /** The share of tasks answered with the right chunk, from 0 to 1. */
  success: number;
  /** Mean tool cost per task (search 1, read 0.25). */
  meanCost: number;
  meanToolCalls: number;
}

/** What {@link runCorpusBenchmark} measured: the `--json` shape of `leash bench corpus`. */
export interface CorpusBenchmarkResult {
  corpus: { path: string; files: number; chunks: number; tasks: number; seed: number; chunkSize: number };
  /**
   * Plain search without an agent: the share of tasks whose right chunk is the first hit (recall@1),
   * among the first three (what verify_3 can find), and among all `hits` (what verify can find).
   */
  search: { recallAt1: number; recallAt3: number; recallAtHits: number; hits: number };
  planners: CorpusPlannerResult[];
  checks: {
    /** `verifyAudit` over the shared trail found nothing, and every run's head is in it. */
    auditVerified: boolean;
    /** Every tool call has a `tool_started` and a `tool_ended` record, as many as the state counts. */
    everyCallAudited: boolean;
    /** Without `corpus:read`, every action of every run was `scope_denied` and no tool ran. */
    deniedWithoutScope: boolean;
    /** With a write tool allowed and no approver, every run paused before writing. */
    pausedBeforeWrite: boolean;
    /** one_shot's success equals plain search's recall@1 exactly, as it must. */
    oneShotEqualsRecallAt1: boolean;
  };
}

/**
 * The guide that ships with leash (docs/guide beside dist/ in the package, beside src/ in the
 * repository): the default corpus, found from this module wherever leash is installed, never from
 * the working directory.
 */
export function defaultCorpus(): string {
  return fileURLToPath(new URL("../../docs/guide", import.meta.url));
}

/** The default seed of the task sample. */
export const DEFAULT_CORPUS_SEED = 20260101;
/** The default number of tasks, as in the seed. */
export const DEFAULT_CORPUS_TASKS = 82;

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`Expected \`${name}\` to be a positive integer.`);
  return value;
}

/**
 * The seed's corpus benchmark: three rule planners find the chunk that holds a sentence of the guide,
 * given its first half, through `search` and `read` under a policy granting `corpus:read`; then the
 * safety checks (chains verified, every call audited, denied without the scope, paused before a write).
 *
 * @example
 * const result = await runCorpusBenchmark({ onProgress: (done, total) => bar.update(done) });
 * console.log(formatCorpusTable(result));
 */
export async function runCorpusBenchmark(options: CorpusBenchmarkOptions = {}): Promise<CorpusBenchmarkResult> {
  const folder = resolve(options.corpus ?? defaultCorpus());
  const taskCount = positiveInteger(options.tasks ?? (options.quick === true ? 12 : DEFAULT_CORPUS_TASKS), "tasks");
  const seed = options.seed ?? DEFAULT_CORPUS_SEED;
  if (!Number.isSafeInteger(seed)) throw new RangeError("Expected `seed` to be an integer.");
  const chunkSize = positiveInteger(options.chunkSize ?? DEFAULT_CHUNK_SIZE, "chunkSize");
  const hits = positiveInteger(options.hits ?? DEFAULT_HITS, "hits");
  const onProgress = options.onProgress ?? noProgress;

  const files = readCorpus(folder);
  const chunks = files.flatMap((file) => chunkMarkdown(file.path, file.text, chunkSize));
  const tasks = pickTasks(files, chunks, taskCount, seed);
  if (tasks.length === 0) throw new Error(`The corpus ${folder} holds no sentence that can be a task.`);
  const index = new SearchIndex(chunks);
  const tools = corpusTools(index, hits);
  const ranks = tasks.map((task) => index.search(task.query, hits).indexOf(task.chunkId));
  const recallAt = (count: number): number => ranks.filter((rank) => rank >= 0 && rank < count).length / tasks.length;
  const recallAt1 = recallAt(1);

  // One trail for every run of the benchmark, as several agents of one app would share it.
  const sink = new MemoryAuditSink();
  const ids = sequence("corpus");
  const clock = steadyClock();
  const planners = corpusPlanners();
  const total = planners.length * tasks.length * 3;
  let done = 0;
  const runAll = async (label: string, planner: Planner, policy: Policy, toolset: Tool[]): Promise<RunState[]> => {
    const agent = new Agent({
      tools: toolset,
      planner,
      policy,
      audit: sink,
      limits: { maxSteps: hits + 3, maxToolCalls: hits + 1 },
      clock,
      randomId: ids,
      name: "corpus-bench",
    });
    const states: RunState[] = [];
    for (const task of tasks) {
      states.push(await agent.run(task.query));
      onProgress(++done, total, label);
    }
    return states;
  };

  const readTools = [tools.search, tools.read];
  const granted = new Policy({ grantedScopes: [CORPUS_SCOPE] });
  const rows: CorpusPlannerResult[] = [];
  const allStates: RunState[] = [];
  const measured: RunState[] = [];
  for (const { name, planner } of planners) {
    const states = await runAll(name, planner, granted, readTools);
    rows.push(summarize(name, states, tasks));
    measured.push(...states);
  }
  allStates.push(...measured);

  const callsBefore = tools.calls.search + tools.calls.read;
  const denied: RunState[] = [];
  for (const { name, planner } of planners)
    denied.push(...(await runAll(`${name} without ${CORPUS_SCOPE}`, planner, new Policy(), readTools)));
  const ranWhileDenied = tools.calls.search + tools.calls.read - callsBefore;
  allStates.push(...denied);

  const writing = new Policy({ grantedScopes: [CORPUS_SCOPE, NOTES_SCOPE], allowEffects: ["read", "write"] });
  const paused: RunState[] = [];
  for (const { name, planner } of planners) {
    paused.push(
      ...(await runAll(`${name} writing first`, writeFirst(planner), writing, [...readTools, tools.saveNote])),
    );
  }
  allStates.push(...paused);

  const records = sink.records;
  const byRun = recordsByRun(records);
  const oneShot = rows.find((row) => row.name === "one_shot");
  return {
    corpus: {
      path: options.corpus ?? folder,
      files: files.length,
      chunks: chunks.length,
      tasks: tasks.length,
      seed,
      chunkSize,
    },
    search: { recallAt1, recallAt3: recallAt(3), recallAtHits: recallAt(hits), hits },
    planners: rows,
    checks: {
      auditVerified: auditVerified(records, allStates),
      everyCallAudited: everyCallAudited(byRun, measured),
      deniedWithoutScope: ranWhileDenied === 0 && everyActionDenied(byRun, denied),
      pausedBeforeWrite: tools.calls.save_note === 0 && everyRunPausedBeforeWrite(byRun, paused, tools.saveNote.name),
      oneShotEqualsRecallAt1: oneShot !== undefined && oneShot.success === recallAt1,
    },
  };
}

function summarize(name: string, states: readonly RunState[], tasks: readonly CorpusTask[]): CorpusPlannerResult {
  let right = 0;
  let cost = 0;
  let calls = 0;
  states.forEach((state, position) => {
    if (state.status === "completed" && state.answer === tasks[position]?.chunkId) right++;
    cost += state.usage.cost;
    calls += state.toolCalls;
  });
  return { name, success: right / states.length, meanCost: cost / states.length, meanToolCalls: calls / states.length };
}

/** Ids `prefix-1`, `prefix-2`, ...: run ids and nonces that make the trail the same on every run. */
function sequence(prefix: string): () => string {
  let next = 0;
  return () => `${prefix}-${++next}`;
}

/** A clock that starts at a fixed time and moves one millisecond per reading, for a reproducible trail. */
function steadyClock(): () => Date {
  let now = Date.parse("2026-01-01T00:00:00.000Z");
  return () => new Date(now++);
}
