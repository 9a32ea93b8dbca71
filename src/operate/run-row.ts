import type { RunStatus } from "../state/outcomes.js";
import type { RunSummary } from "../state/run-summary.js";

/** One run as a listing shows it: `leash runs --json`, the inbox's list and `GET /api/runs`. */
export interface RunRow {
  runId: string;
  status: RunStatus;
  skill: string | null;
  /** The goal's first 200 characters and `…` when longer (see `goalShortened`); `leash show` and the run's page give it whole. */
  goal: string;
  /** Whether `goal` was shortened. */
  goalShortened: boolean;
  steps: number;
  /** What the run spent so far, exact (text and pages show it rounded). */
  cost: number;
  /** How many steps are `interrupted`: whether each call took effect is for a person to check. */
  interruptedSteps: number;
  /** Whether the run is a gate's session (its status stays `running` while requests wait). */
  gate: boolean;
  /** How many requests wait for a person (a gate's session may have several; see `RunSummary.waiting`). */
  waiting: number;
  /** The tool of the oldest request waiting, when one waits. */
  pendingTool: string | null;
  /** "k of n approvals" when the oldest waiting request needs more than one approver, else `null`. */
  approvals: string | null;
  updatedAt: string;
  /** The person the agent named as its work's sponsor (`new Agent({ sponsor })`), else `null`. */
  sponsor: string | null;
}

/** The row of a run's summary. */
export function runRowOf(run: RunSummary): RunRow {
  return {
    runId: run.runId,
    status: run.status,
    skill: run.skill ?? null,
    goal: run.goal,
    goalShortened: run.goalShortened,
    steps: run.steps,
    cost: run.cost,
    interruptedSteps: run.interruptedSteps,
    gate: run.gate,
    waiting: run.waiting,
    pendingTool: run.pendingTool ?? null,
    approvals: run.pendingQuorum === undefined ? null : `${run.pendingGranted ?? 0} of ${run.pendingQuorum} approvals`,
    updatedAt: run.updatedAt,
    sponsor: run.sponsor ?? null,
  };
}
