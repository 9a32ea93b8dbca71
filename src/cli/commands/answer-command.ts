import { Command, InvalidArgumentError } from "commander";
import { answerJson, answerLines, answerRun, checkAnswerInput, editedArguments } from "../../operate/answer-run.js";
import type { AnswerInput } from "../../operate/answer-run.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { withExistingStore } from "../../operate/open-store.js";
import { printJson, printLines } from "../print.js";
import { whyGatewayWillNotCount } from "../../gateway/gateway-run-approval.js";
import { integerOption } from "./bench-corpus.js";

/** Options of `leash approve` and `leash deny`. */
interface AnswerOptions extends CommonOptions {
  as: string;
  note?: string;
  digest?: string;
  step?: number;
  call?: string;
  raiseTo?: number;
  args?: string;
}

/** `--raise-to N`: a number as written (`0.2`, `500`); whether it fits the limit is the store's to check. */
function raiseOption(value: string): number {
  const parsed = Number(value);
  if (value.trim() === "" || !Number.isFinite(parsed))
    throw new InvalidArgumentError("Expected a number, the limit to raise to (as `0.2` or `500`).");
  return parsed;
}

/** Builds `leash approve` or `leash deny`: the two differ only in the answer they record. */
export function answerCommand(name: "approve" | "deny"): Command {
  const granted = name === "approve";
  const command = new Command(name)
    .description(
      `${granted ? "approve" : "deny"} the request a paused run waits on, or one of a gate session's waiting requests (records the answer; runs no tool)`,
    )
    .argument("<run>", "the run id")
    .requiredOption("--as <name>", "who answers: a claim, recorded beside the OS user and host that gave it")
    .option("--note <text>", "a note kept with the answer")
    .option(
      "--digest <digest>",
      "the digest of the request you reviewed (as leash show prints it; a prefix of 12+ hex digits will do): refused if the request changed",
    )
    .option(
      "--step <n>",
      "which waiting request: the step it was asked at (needed when a gate's session has several waiting)",
      integerOption(0),
    )
    .option(
      "--call <call-id>",
      "which waiting request: the call id of a gate session's call (as leash show prints it)",
    );
  if (granted)
    command.option(
      "--raise-to <n>",
      "for a run paused on a limit (askToRaise): the limit, for this run, from now on (more than what was used)",
      raiseOption,
    );
  if (granted)
    command.option(
      "--args <json>",
      "approve with these arguments instead (a JSON object): the call runs with them, after every gate again",
    );
  return withCommonOptions(command).action(async (runId: string, options: AnswerOptions) => {
    const input: AnswerInput = {
      granted,
      approver: options.as,
      ...(options.raiseTo === undefined ? {} : { raiseTo: options.raiseTo }),
      ...(options.note === undefined ? {} : { note: options.note }),
      ...(options.digest === undefined ? {} : { digest: options.digest }),
      ...(options.args === undefined ? {} : { args: options.args }),
      ...(options.step === undefined && options.call === undefined
        ? {}
        : {
            select: {
              ...(options.step === undefined ? {} : { step: options.step }),
              ...(options.call === undefined ? {} : { callId: options.call }),
            },
          }),
    };
    // Checked before the store is opened: a typo in --as or --digest is a usage error wherever the store is.
    checkAnswerInput(input);
    editedArguments(input);
    const location = storeLocation(options);
    const recorded = await withExistingStore(location, (store) =>
      answerRun(store, runId, input, location, {
        notCounted: (id, approver, origin) => whyGatewayWillNotCount(location, id, approver, origin),
      }),
    );
    if (options.json) printJson(answerJson(recorded));
    else printLines(answerLines(recorded, location));
  });
}
