import { Command } from "commander";
import { trace } from "../../trace/trace.js";
import { verifyAudit } from "../../audit/verify-audit.js";
import type { AuditRecord } from "../../audit/audit-record.js";
import { checkRunTrail, problemLines } from "../../operate/check-trail.js";
import { CliError } from "../cli-error.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { describeRun } from "../../operate/describe-run.js";
import { findRun } from "../../operate/find-run.js";
import { interruptedSteps } from "../../operate/interrupted-steps.js";
import { withExistingStore } from "../../operate/open-store.js";
import { printJson, printLines } from "../print.js";
import { shortJson } from "../../operate/short-json.js";
import { readTrail } from "../verify/verify-jsonl.js";

interface ShowOptions extends CommonOptions {
  trail?: string;
}

function recordLines(runId: string, path: string, records: readonly AuditRecord[], problems: string[]): string[] {
  const lines = [`Run ${runId} in the JSONL trail ${path}: ${records.length} records`];
  for (const record of records)
    lines.push(
      `  ${String(record.seq).padStart(3)}  ${record.at}  ${record.event}  ${shortJson(record.data, 100, "see leash show --json")}`,
    );
  lines.push("", problems.length === 0 ? "The run's chain verifies." : `${problems.length} problems:`, ...problems);
  return lines;
}

/**
 * `leash show RUN --trail FILE.jsonl`: a run's records as a JSONL trail holds them (an app that keeps
 * its trail in a `JsonlAuditSink` has no store to show a state from), and whether its chain holds.
 */
function showFromTrail(runId: string, path: string, json: boolean): void {
  const read = readTrail(path);
  const records = read.records.filter(
    (record) => typeof record === "object" && record !== null && record.run === runId,
  );
  if (records.length === 0)
    throw new CliError(
      "run_not_found",
      `No run ${runId} in the trail ${path}; \`leash verify ${path}\` names its runs.`,
    );
  const problems = [...read.problems.filter((problem) => problem.run === null), ...verifyAudit(records)];
  if (json) return printJson({ runId, trail: path, records, problems });
  printLines(recordLines(runId, path, records, problemLines(problems)));
}

/**
 * `leash show RUN`: a run's trace. Its steps and what came of each, what the guards said, what it
 * spent, the request it waits on if any (with its full digest, to pin an answer to), who answered and
 * from where, and whether its audit chain holds up to the state's head. With `--trail FILE`, the run's
 * records in a JSONL trail instead.
 */
export function showCommand(): Command {
  const command = new Command("show")
    .description("print a run's trace: steps, guard lines, usage, the pending request and its audit chain")
    .argument("<run>", "the run id")
    .option("--trail <file>", "show the run's records from a JSONL audit trail instead of a store");
  return withCommonOptions(command).action(async (runId: string, options: ShowOptions) => {
    if (options.trail !== undefined) {
      if (options.db !== undefined || options.schema !== undefined)
        throw new CliError("invalid_option", "Give either --trail FILE or --db, not both.");
      return showFromTrail(runId, options.trail, options.json === true);
    }
    const location = storeLocation(options);
    await withExistingStore(location, async (store) => {
      const state = await findRun(store, runId, location);
      const check = checkRunTrail(state, await store.read(runId));
      if (options.json) {
        const { origins: _origins, ...audit } = check;
        return printJson({
          state: state.toJSON(),
          trace: trace(state),
          interruptedSteps: interruptedSteps(state).length,
          audit,
        });
      }
      printLines(describeRun(state, check));
    });
  });
}
