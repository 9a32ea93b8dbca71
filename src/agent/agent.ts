import type { AuditSink } from "../audit/audit-sink.js";
import type { AuditRecord } from "../audit/audit-record.js";
import { LeashError, StateError } from "../errors/index.js";
import type { ActiveRun } from "../run/active-run.js";
import type { AgentCore, CompiledSkill } from "../run/agent-core.js";
import { containFailure } from "../run/contain-failure.js";
import { continueRun } from "../run/continue-run.js";
import { linkAbort } from "../run/link-abort.js";
import { readResumeTarget } from "../run/resume-target.js";
import { runLoop } from "../run/run-loop.js";
import type { InternalRunOptions, RunOptions } from "../run/start-run.js";
import { prepareRun } from "../run/start-run.js";
import { takeOver } from "../run/take-over.js";
import type { ResumeOptions, TakeOver, TakeOverRequest } from "../run/take-over.js";
import type { Policy } from "../policy/policy.js";
import type { Skill } from "../skills/skill.js";
import type { RunState } from "../state/run-state.js";
import type { AgentEvents } from "./agent-events.js";
import { AgentEmitter } from "./agent-events.js";
import type { AgentOptions } from "./agent-options.js";
import { buildCore, checkCallOptions, compileSkill } from "./agent-options.js";
import { AutoCheckpointer } from "./auto-checkpoint.js";
import { doSkill } from "./do-skill.js";
import type { SkillDriver, SkillOutcome } from "./do-skill.js";

export type { SkillOutcome } from "./do-skill.js";

/** A run this agent starts, resumes or drives: what a cancel aborts, and the end it awaits. */
interface Driven {
  controller: AbortController;
  done: Promise<RunState>;
}

/**
 * Runs a planner's decisions through tools under a policy, within limits, pausing for a person where
 * a call needs approval, and writing every step to a hash-chained audit trail.
 *
 * @example
 * const agent = new Agent({ tools: [lookup], planner, policy: new Policy({ grantedScopes: ["docs:read"] }) });
 * const state = await agent.run("what is a chunk's text?");
 * console.log(state.status, state.answer, verifyAudit(agent.audit.records));
 */
export class Agent {
  readonly #core: AgentCore;
  readonly #events = new AgentEmitter();
  /**
   * The runs this agent drives, by run id: one driver per run in one agent. Each is registered
   * before the first await, with a controller that a cancel aborts, so a cancel reaches a run while
   * it is being prepared or claimed too.
   */
  readonly #runs = new Map<string, Driven>();
  /** The cancels under way, by run id: a second cancel of a run waits for the first. */
  readonly #cancelling = new Map<string, Promise<RunState>>();
  /** The automatic checkpoints of the `checkpoint` option, when it is given. */
  readonly #checkpoints: AutoCheckpointer | undefined;

  constructor(options: AgentOptions) {
    const events = this.#events;
    const core = buildCore(options);
    const checkpoints =
      options.checkpoint === undefined
        ? undefined
        : new AutoCheckpointer(options.checkpoint, core.audit, (event) => events.emit("checkpoint_failed", event));
    this.#checkpoints = checkpoints;
    this.#core = {
      ...core,
      feed: {
        wantsText: () => events.listens("text"),
        text: (event) => events.emit("text", event),
        wantsRecords: () => checkpoints !== undefined || events.listens("record"),
        records: (records) => {
          for (const record of records) events.emit("record", record);
          checkpoints?.written(records);
        },
      },
    };
  }

  /** The agent's audit sink. */
  get audit(): AuditSink & { readonly records?: AuditRecord[] } {
    return this.#core.audit;
  }

  /** The agent's policy: what it may do, and who may answer its requests (`mayApprove`). */
  get policy(): Policy {
    return this.#core.policy;
  }

  /** The agent's name. */
  get name(): string {
    return this.#core.name;
  }

  /**
   * Runs a goal until it completes, stops, fails or pauses for a person.
   *
   * @example const state = await agent.run("save the report", { principal: "mia", limits: { maxSteps: 8 } });
   */
  async run(goal: string, options: RunOptions = {}): Promise<RunState> {
    return this.#start(goal, checkCallOptions(options, "run"));
  }

  #start(goal: string, options: InternalRunOptions): Promise<RunState> {
    const given = typeof options === "object" && options !== null ? options.runId : undefined;
    if (typeof given === "string" && this.#runs.has(given)) {
      const message = `Run \`${given}\` is being run by this agent already; a run id is never reused.`;
      return Promise.reject(new StateError("run_exists", message, { details: { runId: given } }));
    }
    return this.#register(typeof given === "string" ? given : undefined, async (early) => {
      const run = await prepareRun(this.#core, goal, options);
      const unlink = [options.signal, early]
        .filter((signal) => signal !== undefined)
        .map((signal) => linkAbort(signal, run.controller));
      try {
        return await this.#drive(run, () => runLoop(run));
      } finally {
        for (const stop of unlink) stop();
      }
    });
  }

  /** Registers a run id while `body` starts, resumes or drives it; the registration ends with it. */
  async #register(runId: string | undefined, body: (early: AbortSignal) => Promise<RunState>): Promise<RunState> {
    const controller = new AbortController();
    const entry: Driven = { controller, done: Promise.resolve().then(() => body(controller.signal)) };
    if (runId !== undefined) this.#runs.set(runId, entry);
    try {
      return await entry.done;
    } finally {
      if (runId !== undefined && this.#runs.get(runId) === entry) this.#runs.delete(runId);
    }
  }

  async #drive(run: ActiveRun, body: () => Promise<RunState>): Promise<RunState> {
    const { runId } = run.state;
    // Whatever the body throws ends the run failed and saved (containFailure), never `running`.
    const done = Promise.resolve()
      .then(body)
      .catch((error: unknown) => containFailure(run, error));
    // A run started without an id is known by the id it was given once prepared.
    const registered = this.#runs.get(runId);
    const entry: Driven = { controller: run.controller, done };
    if (registered === undefined) this.#runs.set(runId, entry);
    try {
      return await done;
    } finally {
      if (this.#runs.get(runId) === entry) this.#runs.delete(runId);
      // The checkpoints the run made due are stored (or reported) before its driver returns.
      await this.#checkpoints?.settled();
    }
  }

  /**
   * Resumes a paused or crashed run, by id from the store or from a copy. Every gate runs again; an
   * approval runs its action once.
   *
   * @example await agent.resume(paused.runId, { approvals: [Approval.grant(paused.pending!.digest, "allen")] });
   */
  async resume(target: string | RunState, options: ResumeOptions = {}): Promise<RunState> {
    const read = readResumeTarget(target);
    const { runId } = read;
    if (runId !== undefined && this.#runs.has(runId)) {
      throw new StateError(
        "stale_state",
        `Run \`${runId}\` is being driven by this agent; it cannot be resumed until that ends.`,
        { details: { runId } },
      );
    }
    return this.#register(runId, async (early) => {
      const taken = await takeOver(this.#core, { type: "resume", target: read.target, options });
      // A cancel asked for while the resume looked: the paused run is ended as a cancel ends one.
      if (taken.type === "unchanged") return early.aborted ? this.#cancelStored(taken.state.runId) : taken.state;
      const { run } = taken;
      const unlink = linkAbort(early, run.controller);
      try {
        return await this.#drive(run, () => continueRun(run, taken.next));
      } finally {
        unlink();
      }
    });
  }

  /**
   * Cancels a run: a run active in this process stops before its next call (its tools' signals are
   * aborted); a paused run in the store is ended as stopped. Returns the run's final state.
   */
  async cancel(runId: string): Promise<RunState> {
    // A second cancel of the same run from this agent waits for the first and returns its result.
    const running = this.#cancelling.get(runId);
    if (running !== undefined) return running;
    const done = this.#cancel(runId);
    this.#cancelling.set(runId, done);
    try {
      return await done;
    } finally {
      if (this.#cancelling.get(runId) === done) this.#cancelling.delete(runId);
    }
  }

  async #cancel(runId: string): Promise<RunState> {
    const driven = this.#runs.get(runId);
    if (driven === undefined) return this.#cancelStored(runId);
    driven.controller.abort(new LeashError("limit_reached", `Run \`${runId}\` was cancelled.`));
    try {
      return await driven.done;
    } catch {
      // The resume was refused (an approver not allowed, say): the stored run is cancelled all the same.
      return this.#cancelStored(runId);
    }
  }

  /** Ends a run that no process here drives (paused, or crashed) as stopped, from the store. */
  async #cancelStored(runId: string): Promise<RunState> {
    return this.#continue(await takeOver(this.#core, { type: "cancel", runId }));
  }

  /** Writes a note after a run's end (`gave_up`), as a take-over of the ended run. */
  async #note(state: RunState, event: string, data: unknown): Promise<RunState> {
    const request: TakeOverRequest = { type: "note", state, event, data };
    return this.#continue(await takeOver(this.#core, request));
  }

  /** Goes on with what a take-over gave, outside the registry (a cancel or a note ends the run at once). */
  async #continue(taken: TakeOver): Promise<RunState> {
    if (taken.type === "unchanged") return taken.state;
    const { run, next } = taken;
    return continueRun(run, next).catch((error: unknown) => containFailure(run, error));
  }

  /**
   * Does a skill for an input: its brief is the goal, its tools the only tools, its output checked by
   * its schema and `check`. Failed work is tried again from the beginning, as a run of its own, up
   * to `skill.retry.attempts` in all; `gave_up` is emitted once after the last attempt failed.
   */
  async do<I, O>(
    skill: Skill<I, O>,
    input: I,
    options: { principal?: string; limits?: RunOptions["limits"] } = {},
  ): Promise<SkillOutcome<O>> {
    checkCallOptions(options, "do");
    const driver: SkillDriver = {
      start: (goal, runOptions) => this.#start(goal, runOptions),
      note: (state, event, data) => this.#note(state, event, data),
      emit: (event, payload) => this.#events.emit(event, payload),
    };
    return doSkill(driver, this.#addSkill(skill), input, options);
  }

  /**
   * Listens to an agent event: `run_failed` once per failed attempt, `gave_up` once after the last.
   * Returns a function that stops listening. A handler that throws does not break the run.
   */
  on<E extends keyof AgentEvents>(event: E, handler: (payload: AgentEvents[E]) => void): () => void {
    return this.#events.on(event, handler);
  }

  #addSkill(skill: Skill<never, never>): CompiledSkill {
    const known = this.#core.skills.get(skill.name);
    if (known?.skill === skill) return known;
    const compiled = compileSkill(skill, this.#core.tools);
    this.#core.skills.set(compiled.skill.name, compiled);
    return compiled;
  }
}
