import { Command, Option } from "commander";
import { RUN_STATUSES } from "../../index.js";
import type { RunState, RunStatus } from "../../index.js";
import { withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { withExistingStore } from "../open-store.js";
import { formatTable, printJson, printLines, shorten } from "../print.js";

interface RunsOptions extends CommonOptions {
  status?: RunStatus;
}

/** One run as `leash runs --json` lists it. */
export interface RunSummary {
  runId: string;
  status: RunStatus;
  skill: string | null;
  goal: string;
  steps: number;
  updatedAt: string;
}

function summaryOf(state: RunState): RunSummary {
  return {
    runId: state.runId,
    status: state.status,
    skill: state.skill ?? null,
    goal: state.goal,
    steps: state.steps.length,
    updatedAt: state.updatedAt,
  };
}

/**
 * `leash runs [--status S]`: the runs of a store, oldest first. With `--status awaiting_approval` it is
 * the inbox: the work that waits for a person's answer.
 */
export function runsCommand(): Command {
  const command = new Command("runs")
    .description("list the runs in the store (with --status awaiting_approval: the inbox of work waiting for a person)")
    .addOption(new Option("--status <status>", "only the runs of this status").choices(RUN_STATUSES));
  return withCommonOptions(command).action(async (options: RunsOptions) => {
    const states = await withExistingStore(options.db, (store) =>
      store.list(options.status === undefined ? {} : { status: options.status }),
    );
    const runs = states.map(summaryOf);
    if (options.json) return printJson({ db: options.db, status: options.status ?? null, runs });
    if (runs.length === 0) {
      return printLines([
        options.status === undefined ? `No runs in ${options.db}.` : `No run is ${options.status} in ${options.db}.`,
      ]);
    }
    const rows = runs.map((run) => [
      run.runId,
      run.status,
      run.skill === null ? shorten(run.goal, 48) : `${run.skill}: ${shorten(run.goal, 36)}`,
      String(run.steps),
      run.updatedAt,
    ]);
    printLines(formatTable([["RUN", "STATUS", "SKILL / GOAL", "STEPS", "UPDATED"], ...rows]));
    if (options.status === "awaiting_approval") {
      printLines([
        "",
        "Answer one with: leash show RUN, then leash approve RUN --as NAME (or leash deny RUN --as NAME).",
      ]);
    }
  });
}
