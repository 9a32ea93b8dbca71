import { Command, Option } from "commander";
import { listSummaries } from "../../stores/list-summaries.js";
import { RUN_STATUSES } from "../../state/outcomes.js";
import type { RunStatus } from "../../state/outcomes.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { runRowOf } from "../../operate/run-row.js";
import { withExistingStore } from "../../operate/open-store.js";
import { costText } from "../../operate/cost-text.js";
import { escapeText } from "../../operate/escape-text.js";
import { interruptedText } from "../../operate/interrupted-steps.js";
import { integerOption } from "./bench-corpus.js";
import { unreadableSummary } from "../unreadable-run.js";
import type { UnreadableSummary } from "../unreadable-run.js";
import { printGaveUp } from "./runs-gave-up.js";
import { gateRequestLines, gateRequests } from "./runs-waiting.js";
import { formatTable, printErrorJsonLine, printErrorLines, printJson, printLines, shorten } from "../print.js";

/** What `--status` takes: a run's status, or `gave_up` for the work whose every attempt failed. */
const STATUS_CHOICES: readonly string[] = [...RUN_STATUSES, "gave_up"];

interface RunsOptions extends CommonOptions {
  status?: RunStatus | "gave_up";
  limit?: number;
  cursor?: string;
}

/**
 * `leash runs [--status S] [--limit N] [--cursor C]`: the runs of a store, oldest first, read from the
 * summaries the store keeps (no run's state is read). With `--status awaiting_approval` it is the
 * inbox: the work that waits for a person's answer, gate sessions with requests waiting among it
 * (their status stays `running`; each waiting request is named under the table); with
 * `--status gave_up`, the work that gave up.
 * With `--limit` it prints one page and the cursor of the next (`--json`: `next`).
 */
export function runsCommand(): Command {
  const command = new Command("runs")
    .description(
      "list the runs in the store (--status awaiting_approval: the inbox; --status gave_up: work that needs attention)",
    )
    .addOption(
      new Option(
        "--status <status>",
        "only the runs of this status (awaiting_approval: every run awaiting a person, gate sessions with requests waiting included), or gave_up: the work whose every attempt failed",
      ).choices(STATUS_CHOICES),
    )
    .option("--limit <n>", "at most this many runs: one page, then the cursor of the next", integerOption(1))
    .option("--cursor <cursor>", "start after the page this cursor ends (the next cursor printed with --limit)");
  return withCommonOptions(command).action(async (options: RunsOptions) => {
    const location = storeLocation(options);
    const paging = {
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
    };
    if (options.status === "gave_up") return printGaveUp(location, options.json === true, paging);
    const status = options.status;
    const unreadable: UnreadableSummary[] = [];
    // One run whose summary cannot be read must not hide the others: it is named on stderr instead.
    // `awaiting_approval` is the inbox: every run awaiting a person, the gate sessions with requests
    // waiting among them (they stay `running` between calls).
    const filter = status === undefined ? {} : status === "awaiting_approval" ? { awaitingPerson: true } : { status };
    const { page, requests } = await withExistingStore(location, async (store) => {
      const listed = await listSummaries(store, {
        ...filter,
        ...paging,
        onUnreadable: ({ runId, error }) => unreadable.push(unreadableSummary(runId, error)),
      });
      return { page: listed, requests: await gateRequests(store, listed.runs.map(runRowOf)) };
    });
    if (options.json) {
      for (const run of unreadable) printErrorJsonLine({ warning: "unreadable_run", ...run });
    } else {
      printErrorLines(
        unreadable.map(
          (run) => `leash: run ${run.runId} cannot be read, so it is not listed: ${run.message} (${run.code})`,
        ),
      );
    }
    const runs = page.runs.map(runRowOf);
    const next = page.next ?? null;
    if (options.json)
      return printJson({
        db: location.label,
        status: options.status ?? null,
        runs: runs.map((run) => (requests.has(run.runId) ? { ...run, requests: requests.get(run.runId) } : run)),
        next,
        unreadable,
      });
    if (runs.length === 0) {
      const where = options.cursor === undefined ? "" : " after this cursor";
      return printLines([
        options.status === undefined
          ? `No runs in ${location.label}${where}.`
          : `No run is ${options.status} in ${location.label}${where}.`,
      ]);
    }
    // Escaped before the columns are measured, so that an escape's width keeps the table aligned.
    const rows = runs.map((run) =>
      [
        run.runId,
        run.gate
          ? `${run.status} (gate${run.waiting > 0 ? `, ${run.waiting} waiting` : ""})`
          : run.approvals === null
            ? run.status
            : `${run.status} (${run.approvals})`,
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
    printLines(gateRequestLines(requests));
    if (next !== null) printLines(["", escapeText(`More runs: leash runs ${pagingArgs(options)}--cursor ${next}`)]);
    if (options.status === "awaiting_approval") {
      printLines([
        "",
        "Answer one with: leash show RUN (read the request and its digest), then leash approve RUN --as NAME --digest DIGEST (or leash deny RUN --as NAME --digest DIGEST).",
      ]);
    }
  });
}

/** The options that the command for the next page repeats: the store, the status and the limit. */
function pagingArgs(options: RunsOptions): string {
  const location = storeLocation(options);
  const parts = [location.args];
  if (options.status !== undefined) parts.push(`--status ${options.status}`);
  if (options.limit !== undefined) parts.push(`--limit ${options.limit}`);
  return `${parts.join(" ")} `;
}
