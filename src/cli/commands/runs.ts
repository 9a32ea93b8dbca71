import { Command, Option } from "commander";
import { RUN_STATUSES } from "../../index.js";
import type { RunState, RunStatus } from "../../index.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { withExistingStore } from "../../operate/open-store.js";
import { costText } from "../../operate/cost-text.js";
import { escapeText } from "../../operate/escape-text.js";
import { interruptedSteps, interruptedText } from "../../operate/interrupted-steps.js";
import { unreadableSummary } from "../unreadable-run.js";
import type { UnreadableSummary } from "../unreadable-run.js";
import { printGaveUp } from "./runs-gave-up.js";
import { formatTable, printErrorJsonLine, printErrorLines, printJson, printLines, shorten } from "../print.js";

/** What `--status` takes: a run's status, or `gave_up` for the work whose every attempt failed. */
const STATUS_CHOICES: readonly string[] = [...RUN_STATUSES, "gave_up"];

interface RunsOptions extends CommonOptions {
  status?: RunStatus | "gave_up";
}

/** One run as `leash runs --json` lists it. */
interface RunSummary {
  runId: string;
  status: RunStatus;
  skill: string | null;
  goal: string;
  steps: number;
  /** What the run spent so far, exact (the text shows it rounded). */
  cost: number;
  /** How many steps are `interrupted`: whether each call took effect is for a person to check. */
  interruptedSteps: number;
  updatedAt: string;
}

function summaryOf(state: RunState): RunSummary {
  return {
    runId: state.runId,
    status: state.status,
    skill: state.skill ?? null,
    goal: state.goal,
    steps: state.steps.length,
    cost: state.usage.cost,
    interruptedSteps: interruptedSteps(state).length,
    updatedAt: state.updatedAt,
  };
}

/**
 * `leash runs [--status S]`: the runs of a store, oldest first. With `--status awaiting_approval` it is
 * the inbox: the work that waits for a person's answer; with `--status gave_up`, the work that gave up.
 */
export function runsCommand(): Command {
  const command = new Command("runs")
    .description(
      "list the runs in the store (--status awaiting_approval: the inbox; --status gave_up: work that needs attention)",
    )
    .addOption(
      new Option(
        "--status <status>",
        "only the runs of this status, or gave_up: the work whose every attempt failed",
      ).choices(STATUS_CHOICES),
    );
  return withCommonOptions(command).action(async (options: RunsOptions) => {
    const location = storeLocation(options);
    if (options.status === "gave_up") return printGaveUp(location, options.json === true);
    const status = options.status;
    const unreadable: UnreadableSummary[] = [];
    // One run whose state cannot be read must not hide the others: it is named on stderr instead.
    const states = await withExistingStore(location, (store) =>
      store.list({
        ...(status === undefined ? {} : { status }),
        onUnreadable: ({ runId, error }) => unreadable.push(unreadableSummary(runId, error)),
      }),
    );
    if (options.json) {
      for (const run of unreadable) printErrorJsonLine({ warning: "unreadable_run", ...run });
    } else {
      printErrorLines(
        unreadable.map(
          (run) => `leash: run ${run.runId} cannot be read, so it is not listed: ${run.message} (${run.code})`,
        ),
      );
    }
    const runs = states.map(summaryOf);
    if (options.json) return printJson({ db: location.label, status: options.status ?? null, runs, unreadable });
    if (runs.length === 0) {
      return printLines([
        options.status === undefined
          ? `No runs in ${location.label}.`
          : `No run is ${options.status} in ${location.label}.`,
      ]);
    }
    // Escaped before the columns are measured, so that an escape's width keeps the table aligned.
    const rows = runs.map((run) =>
      [
        run.runId,
        run.status,
        run.skill === null ? shorten(run.goal, 48) : `${run.skill}: ${shorten(run.goal, 36)}`,
        String(run.steps),
        costText(run.cost),
        run.updatedAt,
      ].map(escapeText),
    );
    printLines(formatTable([["RUN", "STATUS", "SKILL / GOAL", "STEPS", "COST", "UPDATED"], ...rows]));
    // Said under the table, by run, rather than in a column: the flag is a sentence a person must read.
    const flagged = runs.flatMap((run) => {
      const flag = interruptedText(run.interruptedSteps);
      return flag === null ? [] : [`Run ${run.runId}: ${flag} (leash show ${run.runId}).`];
    });
    if (flagged.length > 0) printLines(["", ...flagged]);
    if (options.status === "awaiting_approval") {
      printLines([
        "",
        "Answer one with: leash show RUN (read the request and its digest), then leash approve RUN --as NAME --digest DIGEST (or leash deny RUN --as NAME --digest DIGEST).",
      ]);
    }
  });
}
