import { Approval } from "../approvals/approval.js";
import type { ApprovalRequest } from "../approvals/approval.js";
import { raiseProblem } from "../approvals/raise-problem.js";
import type { AuditRecord } from "../audit/audit-record.js";
import { makeRecord } from "../audit/audit-record.js";
import type { AuditSink } from "../audit/audit-sink.js";
import { isLeashError, LeashError, StateError, messageOf } from "../errors/index.js";
import { MAX_RECORD_DEPTH, toJson } from "../json/index.js";
import type { RecordedAnswer, RunState } from "../state/run-state.js";
import type { AnswerOptions, AnswerOrigin, RunStore } from "./run-store.js";
import { checkOrigin } from "./check-origin.js";
import type { GrantUse } from "./grant-info.js";
import { compileEditSchema } from "./edit-schema.js";
import type { SchemaValidator } from "../tools/schema-validator.js";

/** How often an answer is tried again when another answer (or save) moved the run in between. */
const MAX_ATTEMPTS = 100;

function checkApproval(approval: unknown): Approval {
  // Rebuilt from its fields even when it is an Approval: a Proxy passes `instanceof`.
  return Approval.fromJSON(approval);
}

/**
 * Records an answer in a store's copy of a paused run, by compare-and-set, for every store alike:
 * the answer is checked against the pending request now, and acted on by the next resume.
 *
 * Answers are never replaced or dropped: each one is added to `state.answers`, with its origin. When
 * the store also holds the run's trail (the agent uses it as its sink), the answer's
 * `approval_answered` record continues the chain in the same transaction as the state, and the answer
 * is marked `audited`; with a separate sink the next claim of the run (a resume, a refused resume, a
 * cancel) writes the record, and the answer stays in the state until it is written. Another
 * answer recorded at the same moment moves the run: the answer is then checked and tried again on the
 * run as it is now, so concurrent answers are all kept.
 */
export async function recordAnswer(
  store: Pick<RunStore, "load" | "save"> & Pick<AuditSink, "read">,
  runId: string,
  given: Approval,
  options: AnswerOptions = {},
): Promise<RunState> {
  if (typeof options !== "object" || options === null)
    throw new LeashError("invalid_option", "Expected the options of answer() to be an object.");
  const approval = checkApproval(given);
  const origin = checkOrigin(options.origin);
  for (let attempt = 1; ; attempt++) {
    try {
      return await recordOnce(store, runId, approval, origin);
    } catch (error) {
      // A lost compare-and-set while the run still awaits this request: another answer got in first.
      if (!isLeashError(error, "stale_state") || !error.details.moved || attempt >= MAX_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 5 * Math.min(attempt, 10))));
    }
  }
}

/**
 * Records a standing grant's approval as an answer to a paused run's pending request, as
 * {@link recordAnswer} records a person's, with the grant's use taken in the same save: the answer
 * is stored exactly when the use is taken. Its origin is `{ via: "grant", grant, use }`. A use the
 * grant does not give is refused (`stale_state` with `details.grant`) and nothing is recorded.
 * @internal
 */
export async function recordGrantAnswer(
  store: Pick<RunStore, "load" | "save"> & Pick<AuditSink, "read">,
  runId: string,
  approval: Approval,
  use: GrantUse,
): Promise<RunState> {
  const origin: AnswerOrigin = { via: "grant", grant: use.grant, use: use.use };
  for (let attempt = 1; ; attempt++) {
    try {
      return await recordOnce(store, runId, approval, origin, use);
    } catch (error) {
      if (!isLeashError(error, "stale_state") || !error.details.moved || attempt >= MAX_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 5 * Math.min(attempt, 10))));
    }
  }
}

/**
 * The request an answer is for, or a `stale_state` refusal: a paused run's pending request; for a
 * gate's session (`state.gate`, running between calls), any request of its waiting list, since its
 * calls are approved and run in any order.
 */
function answeredRequest(state: RunState, approval: Approval): ApprovalRequest {
  const { runId } = state;
  if (state.gate === true && state.status === "running") {
    const waiting = state.waiting ?? [];
    const request = waiting.find((item) => item.digest === approval.digest);
    if (request !== undefined) return request;
    throw new StateError(
      "stale_state",
      waiting.length === 0
        ? `Session \`${runId}\` has no call waiting for a person: there is nothing to answer.`
        : `The answer is for request ${approval.digest.slice(0, 12)}…, which no call of session \`${runId}\` waits for.`,
      { details: { runId, status: state.status } },
    );
  }
  const pending = state.pending;
  if (state.status !== "awaiting_approval" || pending === undefined) {
    throw new StateError(
      "stale_state",
      `Run \`${runId}\` is ${state.status}, not awaiting approval: there is nothing to answer.`,
      { details: { runId, status: state.status } },
    );
  }
  if (pending.digest !== approval.digest) {
    throw new StateError(
      "stale_state",
      `The answer is for request ${approval.digest.slice(0, 12)}…, but run \`${runId}\` awaits ${pending.digest.slice(0, 12)}….`,
      { details: { runId } },
    );
  }
  return pending;
}

/**
 * Refuses, before anything is recorded, an edit the tool's argument schema refuses
 * (`invalid_arguments`, naming the problems), when the asked step kept that schema (see
 * `Step.argsSchema`). The schema is compiled with RE2 as its pattern engine: no pattern can hang
 * the process that records an answer. An edit that cannot be checked here (a schema too long to
 * keep, a pattern RE2 cannot match) is refused too: a resume, which holds the tool, can take it.
 */
function checkEdit(state: RunState, pending: ApprovalRequest, approval: Approval): void {
  if (approval.args === undefined || pending.kind !== "call") return;
  const schema = state.steps[pending.step]?.argsSchema;
  if (schema === undefined) return;
  const unchecked = (why: string): LeashError =>
    new LeashError(
      "invalid_arguments",
      `The arguments ${approval.approver} gave for \`${pending.tool}\` cannot be checked here: ${why}. Nothing was recorded; approve without an edit, or give the edit to a resume, which checks it against the tool.`,
      { details: { runId: state.runId, step: pending.step, approver: approval.approver } },
    );
  // A schema too long to keep was kept as `false`: an edit that cannot be checked is not recorded.
  if (schema === false) throw unchecked("the tool's schema is too long to keep with the request");
  let validation: ReturnType<SchemaValidator["validate"]>;
  try {
    validation = compileEditSchema(schema, `the arguments' schema of \`${pending.tool}\``).validate(approval.args);
  } catch (error) {
    throw unchecked(messageOf(error));
  }
  if (!validation.valid)
    throw new LeashError(
      "invalid_arguments",
      `The arguments ${approval.approver} gave for \`${pending.tool}\` do not match its schema: ${validation.errors.join("; ")}. Nothing was recorded.`,
      { details: { runId: state.runId, step: pending.step, approver: approval.approver } },
    );
}

async function recordOnce(
  store: Pick<RunStore, "load" | "save"> & Pick<AuditSink, "read">,
  runId: string,
  approval: Approval,
  origin: AnswerOrigin | undefined,
  grantUse?: GrantUse,
): Promise<RunState> {
  const state = await store.load(runId);
  if (state === null)
    throw new StateError("run_not_found", `No run \`${runId}\` in the store.`, { details: { runId } });
  const pending = answeredRequest(state, approval);
  const problem = raiseProblem(pending, approval);
  if (problem !== undefined)
    throw new StateError("invalid_answer", `${problem} Nothing was recorded.`, {
      details: { runId, digest: pending.digest },
    });
  checkEdit(state, pending, approval);
  const answer: RecordedAnswer = approval.toJSON();
  if (origin !== undefined) answer.origin = origin;
  // Whichever writes its record (this store now, or the resume later), the answer must be one that
  // can be recorded: refused here (`not_json`) before anything is written, never at the claim.
  const data = toJson(
    // A limit request's answer is the run's, not its step's: its record says so.
    { step: pending.step, recorded: true, ...answer, ...(pending.kind === "limit" ? { kind: "limit" } : {}) },
    "the data of audit event `approval_answered`",
    {
      maxDepth: MAX_RECORD_DEPTH,
    },
  );
  const now = new Date().toISOString();
  // The store holds the run's trail when the agent uses it as its sink: the answer's record then
  // continues that chain, in the same transaction as the state.
  const last = (await store.read(runId)).at(-1);
  let records: AuditRecord[] | undefined;
  if (last !== undefined) {
    const record = makeRecord(runId, { seq: last.seq, digest: last.digest }, "approval_answered", data, now);
    records = [record];
    answer.audited = true;
    state.auditHead = { seq: record.seq, digest: record.digest };
  }
  const expectedRevision = state.revision;
  state.answers = [...state.answers, answer];
  state.revision = expectedRevision + 1;
  state.updatedAt = now;
  try {
    await store.save(state, {
      expectedRevision,
      ...(records === undefined ? {} : { records }),
      ...(grantUse === undefined ? {} : { grantUses: [grantUse] }),
    });
  } catch (error) {
    // A grant's use refused is the grant's refusal, not a run another writer moved.
    if (isLeashError(error, "stale_state") && typeof error.details.grant !== "string") {
      throw new StateError("stale_state", error.message, { details: { runId, moved: true }, cause: error });
    }
    throw error;
  }
  return state;
}
