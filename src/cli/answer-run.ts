import { Approval } from "../index.js";
import type { ApprovalRequest, RunState, RunStore } from "../index.js";
import { CliError } from "./cli-error.js";
import { findRun } from "./find-run.js";
import { shortJson } from "./print.js";

/** A person's answer as given on the command line. */
export interface AnswerInput {
  granted: boolean;
  approver: string;
  note?: string;
}

/** What was recorded: the request answered, the answer, and the run as stored after it. */
export interface RecordedAnswer {
  request: ApprovalRequest;
  approval: Approval;
  state: RunState;
}

/**
 * Records a person's answer to the request a run waits on, in the store (`store.answer`), bound to
 * the request's digest. It runs no tool: only the app has its tools' code, so the answer is acted on
 * by the next resume (`leash resume --agent`, or a worker), where the app's policy also decides
 * whether this person may approve.
 */
export async function answerRun(
  store: RunStore,
  runId: string,
  input: AnswerInput,
  db: string,
): Promise<RecordedAnswer> {
  const found = await findRun(store, runId, db);
  const request = found.pending;
  if (found.status !== "awaiting_approval" || request === undefined) {
    throw new CliError(
      "stale_state",
      `Run ${runId} is ${found.status}, not awaiting approval: there is nothing to answer.`,
    );
  }
  if (input.approver.trim() === "")
    throw new CliError("invalid_option", "Expected --as to name the person who answers.");
  const approval = input.granted
    ? Approval.grant(request.digest, input.approver, input.note)
    : Approval.deny(request.digest, input.approver, input.note);
  const state = await store.answer(runId, approval);
  return { request, approval, state };
}

/** The lines `leash approve` and `leash deny` print once an answer is recorded. */
export function answerLines(recorded: RecordedAnswer, db: string): string[] {
  const { request, approval, state } = recorded;
  const verb = approval.granted ? "Approved" : "Denied";
  return [
    `${verb} step ${request.step} of run ${state.runId}: ${request.tool} ${shortJson(request.args, 80)} (effect ${request.effect}).`,
    `Recorded as ${approval.approver}${approval.note === undefined ? "" : ` ("${approval.note}")`}, for request digest ${request.digest.slice(0, 16)}…`,
    "Nothing ran yet: the app acts on the answer when it resumes the run, and its policy decides there who may approve.",
    `Next: leash resume ${state.runId} --agent PATH --db ${db} (or let your worker pick it up).`,
  ];
}

/** The JSON `leash approve --json` and `leash deny --json` print. */
export function answerJson(recorded: RecordedAnswer): unknown {
  return {
    runId: recorded.state.runId,
    status: recorded.state.status,
    request: recorded.request,
    answer: recorded.approval.toJSON(),
  };
}
