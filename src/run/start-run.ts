import { LeashError, StateError, messageOf } from "../errors/index.js";
import type { Limits } from "../limits/limits.js";
import { checkLimits, mergeLimits } from "../limits/limits.js";
import { RunState, RUN_STATE_VERSION } from "../state/run-state.js";
import type { AgentCore, CompiledSkill } from "./agent-core.js";
import { ActiveRun } from "./active-run.js";
import { refuseReservedRunId } from "../stores/grant-options.js";
import { checkBudgetKey } from "../stores/budget-info.js";

/** Options of one run. */
export interface RunOptions {
  runId?: string;
  principal?: string;
  signal?: AbortSignal;
  limits?: Limits;
}

/** Options the agent adds for runs it starts itself (skills and retries). */
export interface InternalRunOptions extends RunOptions {
  skill?: CompiledSkill;
  attempt?: number;
  retryOf?: string;
  /** The run is a gate's session (`Gate`): marked so in its state and its `run_started` record. */
  gate?: true;
}

const RUN_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** Checks a run id: printable, no spaces, at most 128 characters, and not of a chain the store keeps (`grant:`, `budget:`). */
export function checkRunId(runId: unknown): string {
  if (typeof runId !== "string" || !RUN_ID.test(runId)) {
    throw new LeashError(
      "invalid_option",
      "Expected `runId` to be 1 to 128 characters of letters, digits and . _ : @ -.",
    );
  }
  refuseReservedRunId(runId);
  return runId;
}

/**
 * The key of the shared budget a new run spends from, worked out once by the `budget` option before
 * anything is written: `undefined` (or no option) is no budget; a throw, or a result that is not a
 * budget key, refuses the run with `invalid_option`.
 */
function budgetKeyOf(core: AgentCore, runId: string, goal: string, principal: string | undefined): string | undefined {
  const { budget } = core;
  if (budget === undefined) return undefined;
  let key: unknown;
  try {
    key = budget({ runId, goal, principal, agent: core.name });
  } catch (error) {
    throw new LeashError("invalid_option", `The \`budget\` option threw for run \`${runId}\`: ${messageOf(error)}`, {
      details: { runId },
      cause: error,
    });
  }
  if (key === undefined) return undefined;
  try {
    return checkBudgetKey(key);
  } catch (error) {
    throw new LeashError(
      "invalid_option",
      `The \`budget\` option gave run \`${runId}\` a key that is not a budget's: ${messageOf(error)}`,
      { details: { runId } },
    );
  }
}

/** The longest goal a run takes, in characters: it is stored in the state and the trail. */
const MAX_GOAL_LENGTH = 1_000_000;

/**
 * Builds a new run and makes its first record and state durable. A run id already in the store or in
 * the audit trail is refused with `run_exists` before anything is written.
 */
export async function prepareRun(core: AgentCore, goal: unknown, options: InternalRunOptions): Promise<ActiveRun> {
  if (typeof goal !== "string") throw new LeashError("invalid_option", "Expected the goal to be a string.");
  if (goal.length > MAX_GOAL_LENGTH) {
    throw new LeashError("invalid_option", `Expected the goal to be at most ${MAX_GOAL_LENGTH} characters.`);
  }
  if (typeof options !== "object" || options === null)
    throw new LeashError("invalid_option", "Expected the run options to be an object.");
  if (options.principal !== undefined && (typeof options.principal !== "string" || options.principal === "")) {
    throw new LeashError("invalid_option", "Expected `principal` to be a non-empty string.");
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new LeashError("invalid_option", "Expected `signal` to be an AbortSignal.");
  }
  const limits = mergeLimits(core.limits, checkLimits(options.limits, "limits"));
  const runId = checkRunId(options.runId ?? core.randomId());
  const budget = budgetKeyOf(core, runId, goal, options.principal);
  const exists = (): never => {
    throw new StateError("run_exists", `Run \`${runId}\` exists already; a run id is never reused.`, {
      details: { runId },
    });
  };
  if (core.store !== undefined && (await core.store.load(runId)) !== null) exists();
  if ((await core.audit.read(runId)).length > 0) exists();

  const now = core.clock().toISOString();
  const nonce = core.randomId();
  const state = new RunState({
    format: "leash.run-state",
    version: RUN_STATE_VERSION,
    runId,
    agent: core.name,
    goal,
    status: "running",
    steps: [],
    answers: [],
    usage: { tokens: 0, cost: 0 },
    toolCalls: 0,
    revision: 0,
    auditHead: null,
    attempt: options.attempt ?? 1,
    nonce,
    rejections: 0,
    elapsedMs: 0,
    said: [],
    ran: [],
    limits,
    createdAt: now,
    updatedAt: now,
    ...(options.retryOf === undefined ? {} : { retryOf: options.retryOf }),
    ...(options.principal === undefined ? {} : { principal: options.principal }),
    ...(options.skill === undefined ? {} : { skill: options.skill.skill.name }),
    ...(options.gate === true ? { gate: true } : {}),
    ...(budget === undefined ? {} : { budget }),
    ...(core.sponsor === undefined ? {} : { sponsor: core.sponsor }),
  });
  // The state is created at revision 1 by the first checkpoint below.
  const run = new ActiveRun(core, state, { head: null, stored: false, skill: options.skill });
  run.record("run_started", {
    nonce,
    agent: core.name,
    goal,
    principal: options.principal ?? null,
    skill: options.skill?.skill.name ?? null,
    attempt: state.attempt,
    retryOf: options.retryOf ?? null,
    limits: { ...limits },
    tools: run.tools.names(),
    ...(options.gate === true ? { gate: true } : {}),
    ...(budget === undefined ? {} : { budget }),
    ...(core.sponsor === undefined ? {} : { sponsor: core.sponsor }),
  });
  await run.checkpoint();
  return run;
}
