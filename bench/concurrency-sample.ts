import { setMaxListeners } from "node:events";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, Decision, tool } from "leash";
import type { ModelClient, ModelResponse, RunState } from "leash";
import type { BenchStoreKind } from "./bench-stores.js";
import { describeError, medianOf, openFreshStore, withinMs } from "./bench-stores.js";
import { seededRandom } from "../src/bench/seeded-random.js";

/** Tool steps per run; each run asks its planner once more, to finish. */
export const STEPS_PER_RUN = 5;

/** How often the event-loop delay is sampled, in milliseconds. */
const LAG_RESOLUTION_MS = 10;

/** Model calls per run: one per tool step and one that finishes. */
const CALLS_PER_RUN = STEPS_PER_RUN + 1;

/** One measurement of K concurrent runs on one store. */
export interface ConcurrencySample {
  /** Tool steps completed per second of wall-clock time, over all the runs. */
  stepsPerSecond: number;
  /** The median time from a planner's return to that run's next planner call, in milliseconds. */
  medianGapMs: number;
  /**
   * The median time a planner call took beyond its model's delay, in milliseconds: how late the
   * model's answer was taken up (a blocked event loop fires the timer late) plus what `callModel`
   * adds (its guards, charge and audit record).
   */
  medianOverrunMs: number;
  /** Event-loop delay while the runs went on, in milliseconds. */
  lagP50Ms: number;
  lagP99Ms: number;
  /** The resident set's peak while the runs went on, above what it was before they started, per run (KiB). */
  rssPerRunKiB: number;
  /** Wall-clock time of the whole sample, in milliseconds. */
  wallMs: number;
  /** Runs that completed. */
  completed: number;
  /** What went wrong, when any run did not complete: how many, and the first code and message. */
  failure: string | undefined;
  /** Whether the deadline passed before every run had ended. */
  timedOut: boolean;
}

const NOT_MEASURED = {
  stepsPerSecond: Number.NaN,
  medianGapMs: Number.NaN,
  medianOverrunMs: Number.NaN,
  lagP50Ms: Number.NaN,
  lagP99Ms: Number.NaN,
  rssPerRunKiB: Number.NaN,
  wallMs: Number.NaN,
  completed: 0,
};

/**
 * The simulated model's latency of every call of every run, in milliseconds (50 to 300), from the seed
 * alone: the same delays for every store, so the stores differ only in what they add.
 */
export function modelDelays(k: number, seed: number): Float64Array {
  const random = seededRandom(seed);
  const delays = new Float64Array(k * CALLS_PER_RUN);
  for (let index = 0; index < delays.length; index++) delays[index] = 50 + 250 * random();
  return delays;
}

/** A model that answers after `delayMs`, as a provider's round trip would, with a fixed answer. */
function simulatedModel(delayMs: number, answer: ModelResponse): ModelClient {
  return {
    name: "simulated",
    generate: async (_request, options) => {
      await sleep(delayMs, undefined, { signal: options.signal });
      return answer;
    },
  };
}

const READ_ANSWER: ModelResponse = {
  calls: [{ id: "call", tool: "read", args: {} }],
  usage: { inputTokens: 100, outputTokens: 10 },
};
const FINISH_ANSWER: ModelResponse = { calls: [], text: "done", usage: { inputTokens: 100, outputTokens: 10 } };

/**
 * Runs K runs at once in this process on a fresh store of `kind`, each of {@link STEPS_PER_RUN} calls
 * of a cheap read tool, its planner asking a simulated model (through `ctx.callModel`, so each call is
 * charged and audited) that answers after the seeded delay. Never hangs: past `deadlineMs` the runs
 * are cancelled and the sample says how many had ended.
 */
export async function measureConcurrency(options: {
  kind: BenchStoreKind;
  k: number;
  delays: Float64Array;
  deadlineMs: number;
}): Promise<ConcurrencySample> {
  const { kind, k, delays, deadlineMs } = options;
  let opened;
  try {
    opened = await withinMs(openFreshStore(kind, "leash-bench-concurrency"), 60_000, `opening the ${kind} store`);
  } catch (error) {
    // A store that cannot be opened gives a row that says why, and no further repetition.
    return {
      ...NOT_MEASURED,
      failure: `the store could not be opened: ${describeError(error)}`,
      timedOut: true,
    };
  }
  const lastReturn = new Float64Array(k).fill(Number.NaN);
  const gaps: number[] = [];
  const overruns: number[] = [];
  const read = tool({ name: "read", effect: "read", execute: () => "page" });
  const agent = new Agent({
    name: "Concurrency",
    tools: [read],
    limits: { maxSteps: CALLS_PER_RUN, maxToolCalls: STEPS_PER_RUN, maxDurationMs: 3_600_000 },
    ...(opened.store === undefined ? {} : { store: opened.store }),
    planner: async (state, tools, context) => {
      const index = Number(state.runId.slice(state.runId.lastIndexOf("-") + 1));
      const call = state.steps.length;
      const asked = performance.now();
      if (!Number.isNaN(lastReturn[index]!)) gaps.push(asked - lastReturn[index]!);
      const answer = call < STEPS_PER_RUN ? READ_ANSWER : FINISH_ANSWER;
      const delay = delays[index * CALLS_PER_RUN + call]!;
      await context.callModel(simulatedModel(delay, answer), {
        system: "",
        messages: [{ role: "user", content: state.goal }],
        tools,
      });
      const decision = call < STEPS_PER_RUN ? Decision.act("read", {}) : Decision.finish("done");
      lastReturn[index] = performance.now();
      overruns.push(lastReturn[index] - asked - delay);
      return decision;
    },
  });
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  const rssBefore = process.memoryUsage.rss();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 20);
  const cancel = new AbortController();
  // Every run listens to this one signal: K listeners are the design, not a leak.
  setMaxListeners(0, cancel.signal);
  const outcomes: (RunState | Error)[] = [];
  let ended = 0;
  lag.enable();
  const started = performance.now();
  const runs = Array.from({ length: k }, (_, index) =>
    agent
      .run(`concurrent run ${index}: read the page ${STEPS_PER_RUN} times`, {
        runId: `run-${index}`,
        signal: cancel.signal,
      })
      .then(
        (state) => state,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      )
      .then((outcome) => {
        outcomes.push(outcome);
        ended += 1;
      }),
  );
  let timedOut = false;
  try {
    await withinMs(Promise.all(runs), deadlineMs, "the runs");
  } catch {
    timedOut = true;
  }
  const wallMs = performance.now() - started;
  lag.disable();
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  const endedBeforeDeadline = ended;
  if (timedOut) {
    cancel.abort();
    // Cancelled runs end at their next check; a store call that hangs is left behind, not waited for.
    await withinMs(Promise.all(runs), 10_000, "the cancelled runs").catch(() => undefined);
  }
  await withinMs(opened.remove(), 30_000, "closing the store").catch(() => undefined);
  const completed = outcomes.filter((outcome) => !(outcome instanceof Error) && outcome.status === "completed");
  const completedSteps = completed.reduce((sum, state) => sum + (state instanceof Error ? 0 : state.toolCalls), 0);
  return {
    stepsPerSecond: completedSteps / (wallMs / 1000),
    medianGapMs: medianOf(gaps),
    medianOverrunMs: medianOf(overruns),
    lagP50Ms: lagOf(lag.percentile(50)),
    lagP99Ms: lagOf(lag.percentile(99)),
    rssPerRunKiB: (rssPeak - rssBefore) / 1024 / k,
    wallMs,
    completed: completed.length,
    failure: timedOut
      ? `timed out after ${deadlineMs / 1000} s: ${endedBeforeDeadline} of ${k} runs had ended`
      : failureOf(outcomes, k),
    timedOut,
  };
}

/**
 * The histogram records the whole time between two of its timer's ticks, so an idle loop reads as the
 * resolution itself: the lag is what came on top of it.
 */
function lagOf(nanoseconds: number): number {
  return Math.max(0, nanoseconds / 1e6 - LAG_RESOLUTION_MS);
}

/** How many runs did not complete, and the first one's code and message; undefined when all did. */
function failureOf(outcomes: readonly (RunState | Error)[], k: number): string | undefined {
  const bad = outcomes.filter((outcome) => outcome instanceof Error || outcome.status !== "completed");
  if (bad.length === 0) return undefined;
  const first = bad[0]!;
  const why =
    first instanceof Error
      ? `threw ${describeError(first)}`
      : `ended ${first.status}${first.stopReason === undefined ? "" : ` (${first.stopReason})`}` +
        (first.failure === undefined ? "" : `: ${first.failure.code}: ${first.failure.message}`);
  return `${bad.length} of ${k} runs did not complete; the first ${why}`;
}
