import { RUN_STATUSES } from "../index.js";
import type { RunState, RunStatus } from "../index.js";
import type { CliStore } from "../cli/open-store.js";
import { CliError } from "../cli/cli-error.js";
import { listGaveUp } from "./gave-up.js";

/** How many runs a page of the list shows. */
export const RUNS_PER_PAGE = 50;

/** The filters of the run list: every run status, and the work that gave up. */
export const LIST_FILTERS: readonly string[] = [...RUN_STATUSES, "gave_up"];

/** One run as the list shows it (and `GET /api/runs` returns it). */
export interface RunRow {
  runId: string;
  status: RunStatus;
  skill: string | null;
  goal: string;
  steps: number;
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
    goal: state.goal,
    steps: state.steps.length,
    updatedAt: state.updatedAt,
  };
}

/** Checks `?status=` and `?page=` as given in a URL: unknown values are the caller's mistake. */
export function listQuery(
  status: string | undefined,
  page: string | undefined,
): { status: string | null; page: number } {
  const filter = status === undefined || status === "" ? null : status;
  if (filter !== null && !LIST_FILTERS.includes(filter))
    throw new CliError("invalid_option", `Expected status to be one of ${LIST_FILTERS.join(", ")}.`);
  const number = page === undefined || page === "" ? 1 : Number(page);
  if (!Number.isSafeInteger(number) || number < 1)
    throw new CliError("invalid_option", "Expected page to be a positive whole number.");
  return { status: filter, page: number };
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
