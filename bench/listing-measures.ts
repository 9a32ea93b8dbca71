import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import type { RunStore } from "leash";
import { describeError, medianOf } from "./bench-stores.js";
import { REPOSITORY_FOLDER } from "./repository-folder.js";
import { cpuMsOf, openEventStream, peakRssMiBOf, startServing, timeGet } from "./serving-process.js";

/** What one store of one size measured: each time is a median, in milliseconds; `undefined` when it could not be measured. */
export interface ListingMeasures {
  list: number | undefined;
  /** `list({ limit: 50, order: "updated_desc" })`: a page of states, as the contract's `list` takes. */
  listPage: number | undefined;
  /** `summaries({ limit: 50, order: "updated_desc" })`, when the store has it. */
  summaries: number | undefined;
  inboxPage: number | undefined;
  apiRuns: number | undefined;
  /** One look at the store by the inbox's watcher (its first, when a page opens its event stream). */
  watcherPoll: number | undefined;
  /** The serving process's CPU time with one page open and nothing changing, as a share of one core. */
  idleCpuShare: number | undefined;
  /** The serving process's peak resident set (MiB), after the pages above and one page open. */
  peakRssMiB: number | undefined;
  /** What could not be measured, and why. */
  problems: string[];
}

/**
 * How long the timed calls of one measure may take in all: past it no further call starts (at least
 * one is timed), so a listing that takes seconds at 50,000 runs does not hold a row for minutes.
 */
const BUDGET_MS = 20_000;

/**
 * A measure whose timings took less than this in all is timed again, up to {@link MAX_TIMINGS} times:
 * the median of three timings of a call under a millisecond moves by its own size on a busy machine.
 */
const FAST_MS = 500;
const MAX_TIMINGS = 101;

/**
 * The median of at least `repetitions` timings of `action` after one untimed call (fewer past
 * {@link BUDGET_MS}; more, up to {@link MAX_TIMINGS}, while they took under {@link FAST_MS} in all);
 * `undefined`, noted, when it fails.
 */
async function timed(
  name: string,
  repetitions: number,
  problems: string[],
  action: () => Promise<unknown>,
): Promise<number | undefined> {
  try {
    await action();
    const times: number[] = [];
    for (
      let index = 0;
      index < repetitions ? index === 0 || sum(times) < BUDGET_MS : index < MAX_TIMINGS && sum(times) < FAST_MS;
      index++
    ) {
      const started = performance.now();
      await action();
      times.push(performance.now() - started);
    }
    return medianOf(times);
  } catch (error) {
    problems.push(`${name}: ${describeError(error)}`);
    return undefined;
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** The inbox's watcher as the serving process builds it, from the built package; undefined if it is not there. */
async function watcherClass(): Promise<
  (new (store: RunStore) => { subscribe(listener: () => void): { ready: Promise<void>; stop: () => void } }) | undefined
> {
  try {
    const built = pathToFileURL(join(REPOSITORY_FOLDER, "dist", "inbox", "store-watcher.js")).href;
    const module = (await import(built)) as Record<string, unknown>;
    return typeof module.StoreWatcher === "function" ? (module.StoreWatcher as never) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Measures the listings of a store holding its runs: the store's own calls in this process, then the
 * real `leash serve` on it in a child process (its list page, `GET /api/runs`, and, with one page's
 * event stream open for `idleMs` while nothing changes, its CPU share and peak memory).
 */
export async function measureListings(options: {
  store: RunStore;
  storeArgs: string[];
  token: string;
  repetitions: number;
  idleMs: number;
}): Promise<ListingMeasures> {
  const { store, repetitions } = options;
  const problems: string[] = [];
  const list = await timed("list()", repetitions, problems, () => store.list());
  const listPage = await timed("list({ limit: 50 })", repetitions, problems, async () => {
    const states = await store.list({ limit: 50, order: "updated_desc" });
    if (states.length !== 50) throw new Error("the store ignores `limit`: it gave more than 50 runs");
  });
  const summaries =
    typeof store.summaries === "function"
      ? await timed("summaries()", repetitions, problems, () => store.summaries!({ limit: 50, order: "updated_desc" }))
      : (problems.push("summaries(): the store has none"), undefined);
  const Watcher = await watcherClass();
  const watcherPoll =
    Watcher === undefined
      ? (problems.push("watcher poll: dist/inbox/store-watcher.js has no StoreWatcher"), undefined)
      : await timed("watcher poll", repetitions, problems, async () => {
          // Each subscription of a watcher with no listener starts with one look at the store.
          const subscription = new Watcher(store).subscribe(() => undefined);
          try {
            await subscription.ready;
          } finally {
            subscription.stop();
          }
        });
  let inboxPage: number | undefined;
  let apiRuns: number | undefined;
  let idleCpuShare: number | undefined;
  let peakRssMiB: number | undefined;
  let served;
  try {
    served = await startServing(options.storeArgs, options.token);
  } catch (error) {
    problems.push(`leash serve: ${describeError(error)}`);
  }
  if (served !== undefined) {
    const running = served;
    try {
      inboxPage = await timed("inbox list page", repetitions, problems, () => timeGet(running, "/"));
      apiRuns = await timed("GET /api/runs", repetitions, problems, () => timeGet(running, "/api/runs"));
      const stream = await openEventStream(running);
      try {
        const cpuBefore = cpuMsOf(running.pid);
        const started = performance.now();
        // A page left open: what the watcher's polls cost the serving process while nothing changes.
        await sleep(options.idleMs);
        idleCpuShare = (cpuMsOf(running.pid) - cpuBefore) / (performance.now() - started);
        peakRssMiB = peakRssMiBOf(running.pid);
      } finally {
        stream.close();
      }
    } catch (error) {
      problems.push(`leash serve: ${describeError(error)}`);
    } finally {
      await running.stop();
    }
  }
  return { list, listPage, summaries, inboxPage, apiRuns, watcherPoll, idleCpuShare, peakRssMiB, problems };
}
