import { Command } from "commander";
import { trace } from "../../trace/trace.js";
import type { RunState } from "../../state/run-state.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { findRun } from "../../operate/find-run.js";
import { loadAgent } from "../../operate/load-agent.js";
import { withExistingStore } from "../../operate/open-store.js";
import { printJson, printLines } from "../print.js";
import { shortJson } from "../../operate/short-json.js";
import { limitRequestText } from "../../operate/limit-request-text.js";

interface ResumeOptions extends CommonOptions {
  agent: string;
}

function resumedLines(state: RunState, from: number, dbArgs: string): string[] {
  const lines = [`Run ${state.runId} resumed: it is now ${state.status}.`];
  for (const step of state.steps.slice(from)) {
    const asked = step.decision.type === "act" ? step.decision.tool : "finish";
    lines.push(
      `  step ${step.index}: ${asked} -> ${step.outcome ?? "waiting"}${step.error === undefined ? "" : ` (${step.error.message})`}`,
    );
  }
  const pending = state.pending;
  if (pending !== undefined)
    lines.push(
      pending.kind === "limit"
        ? `It waits again: the run ${limitRequestText(pending)}: leash approve ${state.runId} --as NAME --digest ${pending.digest.slice(0, 16)} --raise-to N ${dbArgs}`
        : `It waits again, for ${pending.tool} ${shortJson(pending.args, 60)}: leash approve ${state.runId} --as NAME --digest ${pending.digest.slice(0, 16)} ${dbArgs}`,
    );
  if (state.answer !== undefined) lines.push(`Answer: ${shortJson(state.answer, 100)}`);
  if (state.failure !== undefined) lines.push(`Failed: ${state.failure.code}: ${state.failure.message}`);
  lines.push(`See the whole trace with: leash show ${state.runId} ${dbArgs}`);
  return lines;
}

/**
 * `leash resume RUN --agent PATH`: resumes a run with the app's own agent, loaded from a module that
 * exports `agent` (built on the store at `process.env.LEASH_DB`, which this command sets from `--db`).
 * Recorded answers are acted on; every gate runs again.
 */
export function resumeCommand(): Command {
  const command = new Command("resume")
    .description(
      "resume a run with the app's agent (a module exporting `agent`, whose store reads process.env.LEASH_DB)",
    )
    .argument("<run>", "the run id")
    .requiredOption("--agent <path>", "the app's module that exports `agent`")
    .addHelpText(
      "after",
      [
        "",
        "The module builds the app's agent on the database the CLI names in LEASH_DB (set from --db):",
        '  export const store = new SqliteStore(process.env.LEASH_DB ?? "leash.db");',
        "  export const agent = new Agent({ tools, planner, policy, store, audit: store });",
        "On PostgreSQL (--db postgres://... --schema S), LEASH_DB and DATABASE_URL hold the URL and",
        "LEASH_SCHEMA the schema. The CLI closes `store` (or calls an exported `close()`) when done.",
        "A TypeScript module (.ts, .mts, .cts) is loaded through tsx, which must be installed beside leash.",
      ].join("\n"),
    );
  return withCommonOptions(command).action(async (runId: string, options: ResumeOptions) => {
    // Read first, and without the app: a missing database or an unknown run is reported before the
    // app's module loads (and before anything of the app could create an empty database).
    const location = storeLocation(options);
    const before = await withExistingStore(location, (store) => findRun(store, runId, location));
    const loaded = await loadAgent(options.agent, location);
    let state: RunState;
    try {
      state = await loaded.agent.resume(runId);
    } finally {
      await loaded.close();
    }
    if (options.json) return printJson({ state: state.toJSON(), trace: trace(state) });
    // The steps this resume moved: from the one that waited (for a person, or in flight when a process stopped).
    const from = before.steps.findIndex((step) => step.outcome === null);
    printLines(resumedLines(state, from === -1 ? before.steps.length : from, location.args));
  });
}
