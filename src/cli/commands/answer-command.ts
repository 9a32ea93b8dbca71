import { Command } from "commander";
import { answerJson, answerLines, answerRun } from "../answer-run.js";
import { withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { withExistingStore } from "../open-store.js";
import { printJson, printLines } from "../print.js";

/** Options of `leash approve` and `leash deny`. */
export interface AnswerOptions extends CommonOptions {
  as: string;
  note?: string;
}

/** Builds `leash approve` or `leash deny`: the two differ only in the answer they record. */
export function answerCommand(name: "approve" | "deny"): Command {
  const granted = name === "approve";
  const command = new Command(name)
    .description(`${granted ? "approve" : "deny"} the request a paused run waits on (records the answer; runs no tool)`)
    .argument("<run>", "the run id")
    .requiredOption("--as <name>", "who answers (the app's policy checks it at resume)")
    .option("--note <text>", "a note kept with the answer");
  return withCommonOptions(command).action(async (runId: string, options: AnswerOptions) => {
    const recorded = await withExistingStore(options.db, (store) =>
      answerRun(
        store,
        runId,
        { granted, approver: options.as, ...(options.note === undefined ? {} : { note: options.note }) },
        options.db,
      ),
    );
    if (options.json) printJson(answerJson(recorded));
    else printLines(answerLines(recorded, options.db));
  });
}
