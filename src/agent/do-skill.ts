import { LeashError } from "../errors/index.js";
import type { CompiledSkill } from "../run/agent-core.js";
import type { InternalRunOptions, RunOptions } from "../run/start-run.js";
import type { Skill } from "../skills/skill.js";
import type { RunStatus } from "../state/outcomes.js";
import type { RunState } from "../state/run-state.js";
import type { AgentEvents } from "./agent-events.js";

/** What `agent.do` returns: the outcome of the last attempt. */
export interface SkillOutcome<O> {
  done: boolean;
  status: RunStatus;
  /** The run id of the last attempt. */
  task: string;
  attempt: number;
  output?: O;
  state: RunState;
}

/** What doing a skill needs from its agent: starting a run, a note after a run's end, its events. */
export interface SkillDriver {
  start(goal: string, options: InternalRunOptions): Promise<RunState>;
  note(state: RunState, event: string, data: unknown): Promise<RunState>;
  emit<E extends keyof AgentEvents>(event: E, payload: AgentEvents[E]): void;
}

/**
 * Does a compiled skill for an input, trying failed work again from the beginning, as a run of its
 * own, up to `skill.retry.attempts` in all. Work a guard blocked at the model, or that waited on a
 * person, is not tried again. `run_failed` is emitted once per failed attempt, and `gave_up` once
 * after the last, with a `gave_up` record written after that run's end.
 */
export async function doSkill<I, O>(
  driver: SkillDriver,
  compiled: CompiledSkill,
  input: I,
  options: { principal?: string; limits?: RunOptions["limits"] },
): Promise<SkillOutcome<O>> {
  const skill = compiled.skill as unknown as Skill<I, O>;
  const attempts = skill.retry?.attempts ?? 1;
  let state: RunState | undefined;
  let attempt = 0;
  while (attempt < attempts) {
    attempt += 1;
    const goal = skill.brief(input);
    const runOptions: InternalRunOptions = { skill: compiled, attempt };
    if (options.principal !== undefined) runOptions.principal = options.principal;
    if (options.limits !== undefined) runOptions.limits = options.limits;
    if (state !== undefined) runOptions.retryOf = state.runId;
    state = await driver.start(goal, runOptions);
    if (state.status !== "failed" || state.failure === undefined) break;
    driver.emit("run_failed", { task: state.runId, attempt, failure: state.failure });
    const waited = state.steps.some((step) => step.approval !== undefined);
    if (state.failure.code === "model_blocked" || waited) break;
  }
  if (state === undefined) throw new LeashError("invalid_skill", "The skill made no attempt.");
  if (state.status === "failed" && state.failure !== undefined) {
    const gaveUp = { task: state.runId, attempts: attempt, problem: state.failure.message };
    // Kept in the state too, saved with the record: a store that is not the run's sink sees it there.
    state.gaveUp = { attempts: attempt, problem: state.failure.message };
    state = await driver.note(state, "gave_up", gaveUp);
    driver.emit("gave_up", gaveUp);
  }
  const outcome: SkillOutcome<O> = {
    done: state.status === "completed",
    status: state.status,
    task: state.runId,
    attempt: state.attempt,
    state,
  };
  if (state.status === "completed") outcome.output = state.answer as O;
  return outcome;
}
