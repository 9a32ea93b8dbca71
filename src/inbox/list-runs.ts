import { LeashError, RUN_STATUSES } from "../index.js";
import type { RunState, RunStatus } from "../index.js";
import type { CliStore } from "../operate/open-store.js";
import { interruptedSteps } from "../operate/interrupted-steps.js";
import { listGaveUp } from "./gave-up.js";

/** How many runs a page of the list shows. */
export const RUNS_PER_PAGE = 50;

/** The filters of the run list: every run status, and the work that gave up. */
export const LIST_FILTERS: readonly string[] = [...RUN_STATUSES, "gave_up"];

/** How many characters of a goal a list shows; the run's page shows it whole. */
const LIST_GOAL_LENGTH = 200;

/** A goal as a list shows it: its first {@link LIST_GOAL_LENGTH} characters and `…` when it is longer. */
export function shortGoal(goal: string): { goal: string; goalShortened: boolean } {
  if (goal.length <= LIST_GOAL_LENGTH) return { goal, goalShortened: false };
  let cut = goal.slice(0, LIST_GOAL_LENGTH);
  // Never half of a character outside the basic plane.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return { goal: `${cut}…`, goalShortened: true };
}

/** One run as the list shows it (and `GET /api/runs` returns it). */
interface RunRow {
  runId: string;
  status: RunStatus;
  skill: string | null;
  /** Shortened to {@link LIST_GOAL_LENGTH} characters and `…` (see `goalShortened`); whole on the run's page. */
  goal: string;
  /** Whether `goal` was shortened. */
  goalShortened: boolean;
  steps: number;
  /** What the run spent so far, exact (the page shows it rounded). */
  cost: number;
  /** How many steps are `interrupted`: whether each call took effect is for a person to check. */
  interruptedSteps: number;
  updatedAt: string;
}

/** One page of the run list. */
export interface RunPage {
  runs: RunRow[];
  /** 1-based. */
  page: number;
  /** At least 1, even when there is no run. */
  pages: number;
  status: string | null;
}

function rowOf(state: RunState): RunRow {
  return {
    runId: state.runId,
    status: state.status,
    skill: state.skill ?? null,
    ...shortGoal(state.goal),
    steps: state.steps.length,
    cost: state.usage.cost,
    interruptedSteps: interruptedSteps(state).length,
    updatedAt: state.updatedAt,
  };
}

/** The number of a page (`?page=`, 1-based), checked: anything else is the caller's mistake. */
export function pageQuery(page: string | undefined): number {
  const number = page === undefined || page === "" ? 1 : Number(page);
  if (!Number.isSafeInteger(number) || number < 1)
    throw new LeashError("invalid_option", "Expected page to be a positive whole number.");
  return number;
}

/** Checks `?status=` and `?page=` as given in a URL: unknown values are the caller's mistake. */
export function listQuery(
  status: string | undefined,
  page: string | undefined,
): { status: string | null; page: number } {
  const filter = status === undefined || status === "" ? null : status;
  if (filter !== null && !LIST_FILTERS.includes(filter))
    throw new LeashError("invalid_option", `Expected status to be one of ${LIST_FILTERS.join(", ")}.`);
  return { status: filter, page: pageQuery(page) };
}

/**
 * A page of the store's runs, newest first (by `updatedAt`, then run id, so pages do not shuffle),
 * {@link RUNS_PER_PAGE} to a page. `gave_up` lists the last attempt of each piece of work that gave up.
 */
export async function listRuns(store: CliStore, query: { status: string | null; page: number }): Promise<RunPage> {
  let states: RunState[];
  if (query.status === "gave_up") {
    const gaveUp = new Set((await listGaveUp(store)).map((work) => work.runId));
    states = (await store.list()).filter((state) => gaveUp.has(state.runId));
  } else {
    states = await store.list(query.status === null ? {} : { status: query.status as RunStatus });
  }
  const rows = states
    .map(rowOf)
    .sort((a, b) => (a.updatedAt === b.updatedAt ? (a.runId < b.runId ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1));
  const pages = Math.max(1, Math.ceil(rows.length / RUNS_PER_PAGE));
  const start = (query.page - 1) * RUNS_PER_PAGE;
  return { runs: rows.slice(start, start + RUNS_PER_PAGE), page: query.page, pages, status: query.status };
}
