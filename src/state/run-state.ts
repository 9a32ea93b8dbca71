import type { ApprovalRequest, CallApprovalRequest } from "../approvals/approval.js";
import type { AuditHead } from "../audit/audit-record.js";
import type { Usage } from "../decisions/decision.js";
import type { Json } from "../json/index.js";
import { copyJson } from "../json/index.js";
import type { Limits, StopReason } from "../limits/limits.js";
import { lazyCopy, untouchedSource } from "./lazy-copy.js";
import type { RunStatus } from "./outcomes.js";
import { parseRunState } from "./run-state-json.js";
import type { Failure, RecordedAnswer, RunStateJson, Step } from "./saved-run-state.js";
import { ranOfSteps } from "./ran-of-steps.js";
import { StateError } from "../errors/index.js";

export type { Failure, RecordedAnswer, RunStateJson, Step, StepError } from "./saved-run-state.js";

/** The version of the saved form of a {@link RunState}. */
export const RUN_STATE_VERSION = 2;

const same = <T>(value: T): T => value;

/** One step as plain JSON, for a prompt: a fresh copy. */
function observationOf(step: Step): Json {
  const base: Record<string, Json> = { step: step.index, outcome: step.outcome };
  if (step.decision.type === "act") {
    base.tool = step.decision.tool;
    base.args = copyJson(step.decision.args);
    // What a person changed when approving: the call took these arguments, not the proposed ones.
    if (step.edited !== undefined) base.edited = { args: copyJson(step.edited.args), by: step.edited.by };
    base.result = copyJson(step.result);
  } else {
    base.answer = copyJson(step.decision.answer);
  }
  if (step.error !== undefined) base.error = { code: step.error.code, message: step.error.message };
  return base;
}

/**
 * A short list of strings is copied at once (a slice costs less than a lazy copy's Proxy and closures
 * to make, and far less to read); a long one lazily, so that a copy stays flat in the run's length.
 */
const EAGER_NAMES = 256;

function copyOfNames(names: string[]): string[] {
  return names.length <= EAGER_NAMES ? names.slice() : lazyCopy(names, same);
}

function cloneJson<T>(value: T): T {
  return structuredClone(value);
}

/** The saved form of a state whose parts are all plain, checked JSON (see {@link detachedCopy}). */
let plainJsonOf: (state: RunState) => RunStateJson;

/**
 * Everything about one run: what was asked, every step, where it stands, what it spent, and where
 * its audit chain ends. `toJSON()` gives its saved form and `RunState.fromJSON` rebuilds (and
 * checks) it; the planner always gets a fresh copy, so changing it changes nothing.
 */
export class RunState {
  runId: string;
  agent: string;
  goal: string;
  status: RunStatus;
  stopReason: StopReason | undefined;
  failure: Failure | undefined;
  answer: Json | undefined;
  steps: Step[];
  pending: ApprovalRequest | undefined;
  /** The history digest the pending request was bound to. */
  pendingHistory: string | undefined;
  /** Whether the run is a gate's session, driven by another framework's loop (see `Gate`). */
  gate: true | undefined;
  /** A gate session's requests waiting for a person, oldest first; `pending` is the first of them. */
  waiting: CallApprovalRequest[] | undefined;
  /**
   * Every answer to the pending request recorded out of process (`store.answer`), in the order
   * recorded, none replaced or dropped; the next resume acts on them and moves them to the trail.
   */
  answers: RecordedAnswer[];
  usage: Usage;
  toolCalls: number;
  revision: number;
  auditHead: AuditHead | null;
  attempt: number;
  retryOf: string | undefined;
  principal: string | undefined;
  skill: string | undefined;
  /** The key of the shared budget the run spends from (API.md section 17), worked out when it started; none: no budget. */
  budget: string | undefined;
  /** The person the run's work is for (API.md section 19), when its agent names one. */
  sponsor: string | undefined;
  /** How the work gave up, on the last attempt of a skill's work that did (its `gave_up` record says the same). */
  gaveUp: { attempts: number; problem: string } | undefined;
  /** The random nonce of the run's `run_started` record. */
  nonce: string;
  /** Refused answers so far. */
  rejections: number;
  /** Running time so far, not counting time spent waiting for a person. */
  elapsedMs: number;
  /** Lines said by guards, in the order said. */
  said: string[];
  /** The tools whose calls started, in order. */
  ran: string[];
  /** The limits this run is bounded by (the agent's, overridden by the run's). */
  limits: Limits;
  createdAt: string;
  updatedAt: string;

  /** @internal Use `agent.run` to start a run and `RunState.fromJSON` to rebuild one. */
  constructor(json: RunStateJson, steps?: Step[]) {
    this.runId = json.runId;
    this.agent = json.agent;
    this.goal = json.goal;
    this.status = json.status;
    this.stopReason = json.stopReason;
    this.failure = json.failure;
    this.answer = json.answer;
    this.steps = steps ?? json.steps;
    this.pending = json.pending;
    this.pendingHistory = json.pendingHistory;
    this.gate = json.gate;
    this.waiting = json.waiting;
    this.answers = json.answers;
    this.usage = json.usage;
    this.toolCalls = json.toolCalls;
    this.revision = json.revision;
    this.auditHead = json.auditHead;
    this.attempt = json.attempt;
    this.retryOf = json.retryOf;
    this.principal = json.principal;
    this.skill = json.skill;
    this.budget = json.budget;
    this.sponsor = json.sponsor;
    this.gaveUp = json.gaveUp;
    this.nonce = json.nonce;
    this.rejections = json.rejections;
    this.elapsedMs = json.elapsedMs;
    this.said = json.said;
    this.ran = json.ran;
    this.limits = json.limits;
    this.createdAt = json.createdAt;
    this.updatedAt = json.updatedAt;
  }

  /**
   * Rebuilds a state from its saved form (an object or JSON text), checking every field. An unknown
   * format version, an unknown key (a `__proto__` key among them) or a wrong type is refused with
   * `StateError` `invalid_state` or `unsupported_version`.
   */
  static fromJSON(json: unknown): RunState {
    return new RunState(parseRunState(json));
  }

  /** The saved form: a fresh deep copy, plain JSON. */
  toJSON(): RunStateJson {
    // A planner's copy holds lazy copies (Proxies), which structuredClone refuses: plain arrays first.
    const json = this.#shallowJson(Array.from(this.steps));
    json.said = Array.from(this.said);
    json.ran = Array.from(this.ran);
    return cloneJson(json);
  }

  /**
   * The saved form as JSON text, without the deep copy `toJSON()` makes first: for stores, which turn
   * the state into text at once.
   */
  toJSONText(): string {
    return JSON.stringify(this.#shallowJson(this.steps));
  }

  /**
   * The saved form without its steps, as JSON text (`steps` is `[]`), for stores that keep each step
   * as a row of its own and write only the steps that changed. A step whose `outcome` is set never
   * changes again, so a store needs to write only the steps from the first one without an outcome
   * at its last save.
   *
   * It leaves out `ran` too, which gets one tool name per call and is rebuilt from the steps by
   * {@link RunState.fromParts}, so that what a save writes does not grow with the run. (`said` stays:
   * it grows only when a guard blocks.)
   */
  headerText(): string {
    const json: Omit<RunStateJson, "ran"> & { ran?: string[] } = this.#shallowJson([]);
    // JSON.stringify leaves out a key whose value is undefined.
    json.ran = undefined;
    return JSON.stringify(json);
  }

  /** One step's saved form as JSON text. */
  stepText(index: number): string {
    const step = this.steps[index];
    if (step === undefined) throw new RangeError(`Run \`${this.runId}\` has no step ${index}.`);
    return JSON.stringify(step);
  }

  /**
   * Rebuilds a state from a header (the saved form with `steps: []`, as {@link RunState.headerText}
   * gives it) and its steps' saved forms, as text or parsed, checking everything as
   * {@link RunState.fromJSON} does. A header without `ran` gets it rebuilt from the steps; a header
   * that has it (written by an older leash) keeps it as written.
   */
  static fromParts(header: unknown, steps: readonly unknown[]): RunState {
    let json: unknown;
    try {
      const parsed: unknown = typeof header === "string" ? JSON.parse(header) : header;
      if (typeof parsed !== "object" || parsed === null) return RunState.fromJSON(parsed);
      const parsedSteps = steps.map((step) => (typeof step === "string" ? (JSON.parse(step) as unknown) : step));
      json = Object.hasOwn(parsed, "ran")
        ? { ...parsed, steps: parsedSteps }
        : { ...parsed, steps: parsedSteps, ran: ranOfSteps(parsedSteps) };
    } catch (error) {
      if (error instanceof SyntaxError)
        throw new StateError("invalid_state", `A saved run state part is not JSON: ${error.message}`);
      throw error;
    }
    return RunState.fromJSON(json);
  }

  /**
   * A fresh copy, as a planner gets it: equal to `RunState.fromJSON(this.toJSON())`, but each step is
   * copied only when read, so copying a long run costs no more than a short one.
   */
  copy(): RunState {
    // Field by field rather than one structuredClone, and nothing that grows with the run copied up
    // front: `steps`, `said` and `ran` are copied element by element as they are read (strings need
    // no clone), so a copy at step 40,000 costs what it costs at step 10.
    const json = this.#shallowJson([]);
    json.said = copyOfNames(this.said);
    json.ran = copyOfNames(this.ran);
    json.usage = { ...this.usage };
    json.limits = { ...this.limits };
    json.auditHead = this.auditHead === null ? null : { ...this.auditHead };
    json.answers = this.answers.map((answer) =>
      answer.origin === undefined ? { ...answer } : { ...answer, origin: { ...answer.origin } },
    );
    if (json.failure !== undefined) json.failure = { ...json.failure };
    if (json.gaveUp !== undefined) json.gaveUp = { ...json.gaveUp };
    // The run's own parts are checked JSON: a JSON copy is what structuredClone gives for them, at a
    // fraction of its fixed cost per call, which a planner reading a step at every step pays.
    if (json.answer !== undefined) json.answer = copyJson(json.answer);
    if (json.pending !== undefined) json.pending = copyJson(json.pending);
    if (json.waiting !== undefined) json.waiting = copyJson(json.waiting);
    return new RunState(json, lazyCopy(this.steps, copyJson));
  }

  /**
   * The steps as plain JSON, ready for a prompt: what was decided, and what came of it. A fresh array
   * each call, whose elements are made when first read: asking for it at every step of a long run
   * costs what reading it costs, not what the run's length does.
   */
  observations(): Json[] {
    const linked = untouchedSource(this.steps);
    return linked === undefined
      ? lazyCopy(this.steps, observationOf)
      : lazyCopy(linked.source, observationOf, linked.length);
  }

  static {
    plainJsonOf = (state) => copyJson(state.#shallowJson(state.steps));
  }

  #shallowJson(steps: Step[]): RunStateJson {
    const json: RunStateJson = {
      format: "leash.run-state",
      version: RUN_STATE_VERSION,
      runId: this.runId,
      agent: this.agent,
      goal: this.goal,
      status: this.status,
      steps,
      answers: this.answers,
      usage: this.usage,
      toolCalls: this.toolCalls,
      revision: this.revision,
      auditHead: this.auditHead,
      attempt: this.attempt,
      nonce: this.nonce,
      rejections: this.rejections,
      elapsedMs: this.elapsedMs,
      said: this.said,
      ran: this.ran,
      limits: this.limits,
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
    };
    if (this.stopReason !== undefined) json.stopReason = this.stopReason;
    if (this.failure !== undefined) json.failure = this.failure;
    if (this.answer !== undefined) json.answer = this.answer;
    if (this.pending !== undefined) json.pending = this.pending;
    if (this.pendingHistory !== undefined) json.pendingHistory = this.pendingHistory;
    if (this.gate !== undefined) json.gate = this.gate;
    if (this.waiting !== undefined) json.waiting = this.waiting;
    if (this.retryOf !== undefined) json.retryOf = this.retryOf;
    if (this.principal !== undefined) json.principal = this.principal;
    if (this.skill !== undefined) json.skill = this.skill;
    if (this.budget !== undefined) json.budget = this.budget;
    if (this.sponsor !== undefined) json.sponsor = this.sponsor;
    if (this.gaveUp !== undefined) json.gaveUp = this.gaveUp;
    return json;
  }
}

/**
 * A deep copy of a state this process built and checked as it went (the run loop's own, as a run
 * ends or pauses): what `RunState.fromJSON(state.toJSON())` gives, without checking every step again
 * and copying it twice, which made returning a run cost a step's worth per step it took. States
 * from elsewhere (a store, a caller) go through `RunState.fromJSON`.
 */
export function detachedCopy(state: RunState): RunState {
  // The loop's own state holds only checked JSON in plain arrays (never a planner's lazy copy), so a
  // JSON copy is what structuredClone gives for it, at a fraction of its cost for a long run.
  return new RunState(plainJsonOf(state));
}
