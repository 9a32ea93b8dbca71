import type { ApprovalRequest } from "../approvals/approval.js";
import { MAX_RECORD_DEPTH, toJson } from "../json/index.js";
import type { RunState } from "../state/run-state.js";
import { detachedCopy } from "../state/run-state.js";
import type { ActiveRun } from "./active-run.js";
import { answeredData } from "./audit-answers.js";
import type { DecidedAnswers } from "./decide-answers.js";

/**
 * Records the answers of a resume that falls short of the pending request's quorum, and leaves the
 * run paused: the answers given to the resume join `state.answers` as `store.answer` would have put
 * them there, each answer not yet audited gets its `approval_answered` record, and
 * `pending.grantedBy` says who granted so far under the policy. Claimed like any resume, so a
 * concurrent one that wins records them instead. Nothing runs. Returns a copy of the paused run.
 */
export async function recordShort(
  run: ActiveRun,
  pending: ApprovalRequest,
  short: Extract<DecidedAnswers, { type: "short" }>,
): Promise<RunState> {
  const { state } = run;
  // Nothing new to record (every answer audited, grantedBy as saved): nothing is written, so a
  // worker that picks the run up again does not move it.
  const asked = state.pending?.kind === "call" ? state.pending : undefined;
  const same = JSON.stringify(asked?.grantedBy ?? []) === JSON.stringify(short.grantedBy);
  if (short.heard.length === 0 && same && state.answers.every((answer) => answer.audited === true)) {
    const paused = detachedCopy(state);
    run.letGo();
    return paused;
  }
  const records: [string, unknown][] = [];
  const answers = [...state.answers];
  for (const item of short.heard) {
    let index = item.index;
    if (index === undefined) {
      index = answers.length;
      answers.push(item.json);
    }
    records.push(["approval_answered", answeredData(pending.step, { index, json: item.json }, item.allowed)]);
  }
  // Checked before the claim: an answer that cannot be recorded is refused while nothing is written.
  for (const [event, data] of records)
    toJson(data, `the data of audit event \`${event}\``, { maxDepth: MAX_RECORD_DEPTH });
  // The given answers are kept before the claim's save, so a crash before their records are written
  // leaves them in the state for the next claim to audit.
  state.answers = answers;
  await run.claim(records, () => {
    state.answers = state.answers.map((answer) => ({ ...answer, audited: true }));
    if (state.pending?.kind === "call") state.pending.grantedBy = [...short.grantedBy];
  });
  const paused = detachedCopy(state);
  run.letGo();
  return paused;
}
