import type { ApprovalJson, ApprovalRequest, CallApprovalRequest } from "../approvals/approval.js";
import type { AuditHead } from "../audit/audit-record.js";
import type { Decision, Usage } from "../decisions/decision.js";
import type { Json } from "../json/index.js";
import type { Limits, StopReason } from "../limits/limits.js";
import type { AnswerOrigin } from "../approvals/answer-origin.js";
import type { FailureCode } from "../errors/index.js";
import type { Outcome, RunStatus } from "./outcomes.js";

// The shape of a run's saved form, apart from the class that holds it (`run-state.ts`) and its parser
// (`run-state-json.ts`): both need it, and neither imports the other's types.

/**
 * An answer recorded out of process (`store.answer`): the approval, where it came from when the
 * channel says so (`origin`, e.g. the command line's operating-system user and host), and whether its
 * `approval_answered` record is in the trail already (`audited`: the store holds the run's trail, so
 * the record was written with the answer, or a resume refused with `approver_not_allowed` wrote it);
 * otherwise the next claim of the run (a resume, a cancel, a recovery) writes the record.
 */
export interface RecordedAnswer extends ApprovalJson {
  origin?: AnswerOrigin;
  audited?: boolean;
}

/** Why a step did not give a result. */
export interface StepError {
  code: string;
  message: string;
}

/** One planner decision and what came of it. */
export interface Step {
  index: number;
  decision: Decision;
  /** `null` while the step awaits approval or its tool call is in flight. */
  outcome: Outcome | null;
  /** The tool's result; `null` when the tool did not run or its result was withheld. */
  result: Json;
  error?: StepError;
  /** The answer that let the call run, or refused it. */
  approval?: ApprovalJson;
  /** How many times the tool call started (more than once only after crash recovery). */
  starts?: number;
  /** Stable across every start of this call. */
  idempotencyKey?: string;
  /**
   * A gate session's step only: the earlier steps still open (waiting for a person, or running) when
   * this step's approval was asked. Its request's history counts them as open, as the person saw them.
   */
  openAtRequest?: number[];
  /**
   * The arguments a person's approval put in place of the proposed ones (`decision.args` keeps what
   * the planner proposed): the call's gates and the call itself took these, and `by` gave them.
   */
  edited?: { args: Json; by: string };
  /**
   * The JSON Schema of the tool's arguments, kept on a step whose call was asked of a person, so that
   * an edit given with an answer is checked where no tool is at hand (`store.answer`, `leash approve
   * --args`, the inbox) before anything is recorded; `false` when it was longer than 64 KB of JSON
   * (an edit is then refused there). The resume that acts on the answer checks the edited call
   * against the tool itself, with every other gate.
   */
  argsSchema?: Json;
}

/** Why a run failed. */
export interface Failure {
  code: FailureCode;
  message: string;
}

/**
 * The saved form of a `RunState`: plain JSON with a format tag and version. Version 2 gave each
 * request its `kind` (`"call"` or `"limit"`); a version-1 form is read as version 2, its requests
 * all calls.
 */
export interface RunStateJson {
  format: "leash.run-state";
  version: 2;
  runId: string;
  agent: string;
  goal: string;
  status: RunStatus;
  stopReason?: StopReason;
  failure?: Failure;
  answer?: Json;
  steps: Step[];
  pending?: ApprovalRequest;
  pendingHistory?: string;
  /**
   * A gate's session (`Gate`): a run driven by another framework's loop, each call a step. Workers and
   * `leash resume` leave such a run alone.
   */
  gate?: true;
  /**
   * A gate session's requests waiting for a person, oldest first (`pending` is the first); each is
   * answered on its own by `store.answer`, the command line or the inbox.
   */
  waiting?: CallApprovalRequest[];
  answers: RecordedAnswer[];
  usage: Usage;
  toolCalls: number;
  revision: number;
  auditHead: AuditHead | null;
  attempt: number;
  retryOf?: string;
  principal?: string;
  skill?: string;
  /** The key of the run's shared budget, when it spends from one; states saved before budgets have none. */
  budget?: string;
  /** The person the run's work is for (API.md section 19, "Sponsors"); carried to a skill's later attempts. */
  sponsor?: string;
  /**
   * Set on the last attempt of a skill's work when it gave up (with its `gave_up` record): so that a
   * store that is not the run's audit sink still sees it, and announces it.
   */
  gaveUp?: { attempts: number; problem: string };
  nonce: string;
  rejections: number;
  elapsedMs: number;
  said: string[];
  ran: string[];
  limits: Limits;
  createdAt: string;
  updatedAt: string;
}
