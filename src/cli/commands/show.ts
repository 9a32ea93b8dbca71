import { Command } from "commander";
import { trace } from "../../index.js";
import { checkRunTrail } from "../check-trail.js";
import { withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { describeRun } from "../describe-run.js";
import { findRun } from "../find-run.js";
import { withExistingStore } from "../open-store.js";
import { printJson, printLines } from "../print.js";

/**
 * `leash show RUN`: a run's trace. Its steps and what came of each, what the guards said, what it
 * spent, the request it waits on if any, and whether its audit chain holds up to the state's head.
 */
export function showCommand(): Command {
  const command = new Command("show")
    .description("print a run's trace: steps, guard lines, usage, the pending request and its audit chain")
    .argument("<run>", "the run id");
  return withCommonOptions(command).action(async (runId: string, options: CommonOptions) => {
    await withExistingStore(options.db, async (store) => {
      const state = await findRun(store, runId, options.db);
      const check = checkRunTrail(state, await store.read(runId));
      if (options.json) return printJson({ state: state.toJSON(), trace: trace(state), audit: check });
      printLines(describeRun(state, check));
    });
  });
}
