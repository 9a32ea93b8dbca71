import { randomUUID } from "node:crypto";
import type { Approver } from "../approvals/approval.js";
import type { CheckpointOptions } from "./auto-checkpoint.js";
import type { AuditSink } from "../audit/audit-sink.js";
import { MemoryAuditSink } from "../audit/memory-audit-sink.js";
import { LeashError, checkOptionKeys } from "../errors/index.js";
import type { Guard } from "../guards/guard.js";
import { checkGuard } from "../guards/guard.js";
import type { Limits } from "../limits/limits.js";
import { checkLimits } from "../limits/limits.js";
import { Policy } from "../policy/policy.js";
import type { AgentCore, BudgetOption, CompiledSkill, DoneCriterion } from "../run/agent-core.js";
import type { Planner } from "../models/planner.js";
import { SILENT_FEED } from "../run/agent-core.js";
import type { Skill } from "../skills/skill.js";
import type { RunStore } from "../stores/run-store.js";
import { isAuditSink, isRunStore } from "../stores/run-store.js";
import { compileSchema } from "../tools/schema-validator.js";
import type { Tool } from "../tools/tool.js";
import { Toolset } from "../tools/toolset.js";

/** Options of {@link Agent}. */
export interface AgentOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tools: Toolset | Tool<any>[];
  planner: Planner;
  policy?: Policy;
  limits?: Limits;
  /** Where states are kept; default none (the caller holds the copies). */
  store?: RunStore;
  /** Default: the store when it is also a sink, else a new MemoryAuditSink. */
  audit?: AuditSink;
  skills?: Skill<never, never>[];
  /** Answers approval requests at once; `null` pauses the run. */
  approver?: Approver;
  guards?: Guard[];
  /** A string refuses the answer, and says why. */
  done?: DoneCriterion;
  /** The agent's name in guard context and the audit trail. Default "agent". */
  name?: string;
  clock?: () => Date;
  randomId?: () => string;
  /** The largest canonical JSON size of one call's arguments, in characters. Default 1,000,000. */
  maxArgumentsSize?: number;
  /**
   * The largest JSON size of one tool result, in characters. A larger result is a `tool_error` step
   * (error code `result_too_large`) and is neither kept nor recorded. Default 1,000,000.
   */
  maxResultSize?: number;
  /** Whether `model_called` records carry the full request and response. Default false (digests only). */
  recordModelText?: boolean;
  /**
   * Automatic checkpoints of the audit sink's Merkle log (the sink must keep one: a SQLite,
   * PostgreSQL or memory store or sink): signed with `key` for `origin` and stored in the log, every
   * `every` records this agent writes and/or at each run's end (`atRunEnd`, the default when `every`
   * is not given). A failed checkpoint never fails the run; it is reported to
   * `agent.on("checkpoint_failed")`.
   */
  checkpoint?: CheckpointOptions;
  /**
   * Names the shared budget each run spends from (API.md section 17): called once as a run starts
   * with `{ runId, goal, principal, agent }`; `undefined` means no budget. Needs a `store` with
   * shared budgets (`setBudget`, `budget`).
   */
  budget?: BudgetOption;
  /**
   * The person this agent's work is for (API.md section 19, "Sponsors"): kept in each run's state and
   * `run_started` record, carried to a skill's later attempts, and named by the notifications of its
   * end and of work that gave up; the inbox lists the work that gave up for its sponsor first. A name
   * as `leash approvers` takes them: 1 to 64 characters, each a letter, a digit or one of . _ @ -.
   */
  sponsor?: string;
}

/** Every option {@link AgentOptions} names: any other key is refused. */
export const AGENT_OPTIONS = [
  "tools",
  "planner",
  "policy",
  "limits",
  "store",
  "audit",
  "skills",
  "approver",
  "guards",
  "done",
  "name",
  "clock",
  "randomId",
  "maxArgumentsSize",
  "maxResultSize",
  "recordModelText",
  "checkpoint",
  "budget",
  "sponsor",
] as const;

/** What a sponsor's name may be: the shape of an approver's name, so that it can be a signed-in person's. */
const SPONSOR_SHAPE = /^[A-Za-z0-9._@-]{1,64}$/;

const SKILL_FIELDS = ["name", "description", "tools", "output", "brief", "check", "retry"] as const;

const fail = (message: string): never => {
  throw new LeashError("invalid_option", message);
};

/** Compiles a skill once: its output schema and its subset of the agent's tools. */
export function compileSkill(skill: Skill<never, never>, tools: Toolset): CompiledSkill {
  if (typeof skill !== "object" || skill === null) throw new LeashError("invalid_skill", "Expected a skill object.");
  // A misspelt field (`ouput`, `retries`) would silently drop a check or a retry.
  checkOptionKeys(skill, SKILL_FIELDS, `skill ${JSON.stringify(String(skill.name))}`, {
    code: "invalid_skill",
    noun: "field",
  });
  if (skill.retry !== undefined) {
    checkOptionKeys(skill.retry, ["attempts"], `retry of skill ${JSON.stringify(String(skill.name))}`, {
      code: "invalid_skill",
      noun: "field",
    });
  }
  if (typeof skill.name !== "string" || skill.name === "")
    throw new LeashError("invalid_skill", "Expected the skill's `name` to be a non-empty string.");
  if (typeof skill.brief !== "function")
    throw new LeashError("invalid_skill", `Expected skill \`${skill.name}\` to have a \`brief(input)\` function.`);
  if (skill.check !== undefined && typeof skill.check !== "function")
    throw new LeashError("invalid_skill", `Expected the \`check\` of skill \`${skill.name}\` to be a function.`);
  const attempts = skill.retry?.attempts ?? 1;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new LeashError(
      "invalid_skill",
      `Expected \`retry.attempts\` of skill \`${skill.name}\` to be an integer of at least 1.`,
    );
  if (
    skill.tools !== undefined &&
    (!Array.isArray(skill.tools) || !skill.tools.every((name) => typeof name === "string"))
  ) {
    throw new LeashError(
      "invalid_skill",
      `Expected the \`tools\` of skill \`${skill.name}\` to be an array of tool names.`,
    );
  }
  let output;
  try {
    output =
      skill.output === undefined ? undefined : compileSchema(skill.output, `the output of skill \`${skill.name}\``);
  } catch (error) {
    throw new LeashError("invalid_skill", (error as Error).message);
  }
  return { skill, output, tools: skill.tools === undefined ? tools : tools.subset(skill.tools) };
}

/** The options an agent and a gate both take. */
export interface SharedOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tools: Toolset | Tool<any>[];
  policy?: Policy;
  limits?: Limits;
  approver?: Approver;
  guards?: Guard[];
  name?: string;
  clock?: () => Date;
  randomId?: () => string;
}

/** What {@link checkSharedOptions} gives: the parts of an `AgentCore` an agent and a gate share. */
export type SharedCore = Pick<
  AgentCore,
  "name" | "tools" | "policy" | "limits" | "approver" | "guards" | "clock" | "randomId"
>;

const isFunctionOrUndefined = (value: unknown, name: string): void => {
  if (value !== undefined && typeof value !== "function") fail(`Expected \`${name}\` to be a function.`);
};

/**
 * Checks and defaults the options an agent and a gate share. Each option is read once, here: a
 * getter cannot show the check one value and the core another.
 */
export function checkSharedOptions(options: SharedOptions, defaultName: string): SharedCore {
  const { tools: given, policy: givenPolicy, limits, approver, guards: givenGuards, name: givenName } = options;
  const { clock, randomId } = options;
  const tools =
    given instanceof Toolset
      ? given
      : Array.isArray(given)
        ? new Toolset(given)
        : fail("Expected `tools` to be a Toolset or an array of tools.");
  const policy = givenPolicy ?? new Policy();
  if (!(policy instanceof Policy)) fail("Expected `policy` to be a Policy.");
  isFunctionOrUndefined(approver, "approver");
  isFunctionOrUndefined(clock, "clock");
  isFunctionOrUndefined(randomId, "randomId");
  const guards = givenGuards ?? [];
  if (!Array.isArray(guards)) fail("Expected `guards` to be an array of guards, each with a non-empty `name`.");
  const name = givenName ?? defaultName;
  if (typeof name !== "string" || name === "") fail("Expected `name` to be a non-empty string.");
  return {
    name,
    tools,
    policy,
    limits: checkLimits(limits, "limits"),
    approver,
    // Each guard is read once, here: the core keeps a frozen copy of its name and bound hooks.
    guards: Object.freeze(guards.map(checkGuard)),
    clock: clock ?? (() => new Date()),
    randomId: randomId ?? randomUUID,
  };
}

/**
 * Checks the `budget` option of an agent or a gate: a function, and a store that keeps shared
 * budgets (a run's charges go to it), else `invalid_option`.
 */
export function checkBudgetOption(budget: unknown, store: RunStore | undefined): BudgetOption | undefined {
  if (budget === undefined) return undefined;
  if (typeof budget !== "function")
    fail("Expected `budget` to be a function ({ runId, goal, principal, agent }) => string | undefined.");
  if (store === undefined || typeof store.budget !== "function" || typeof store.setBudget !== "function")
    fail(
      "The `budget` option needs a `store` that keeps shared budgets (`setBudget` and `budget`): MemoryStore, SqliteStore or PostgresStore.",
    );
  return budget as BudgetOption;
}

/** Checks and defaults every option of an agent in one place, before any side effect. */
export function buildCore(options: AgentOptions): AgentCore {
  if (typeof options !== "object" || options === null) fail("Expected the agent options to be an object.");
  // A misspelt option (`polcy`, `limit`) would silently leave its default in place.
  checkOptionKeys(options, AGENT_OPTIONS, "new Agent(options)");
  const shared = checkSharedOptions(options, "agent");
  const { planner, done } = options;
  if (typeof planner !== "function") fail("Expected `planner` to be a function (state, tools, context) => Decision.");
  isFunctionOrUndefined(done, "done");
  if (options.store !== undefined && !isRunStore(options.store))
    fail("Expected `store` to be a RunStore (create, load, save, list, answer).");
  if (options.audit !== undefined && !isAuditSink(options.audit))
    fail("Expected `audit` to be an AuditSink (append, read).");
  const store = options.store;
  const budget = checkBudgetOption(options.budget, store);
  const sponsor: unknown = options.sponsor;
  if (sponsor !== undefined && (typeof sponsor !== "string" || !SPONSOR_SHAPE.test(sponsor)))
    fail("Expected `sponsor` to be a person's name: 1 to 64 characters, each a letter, a digit or one of . _ @ -.");
  const audit = options.audit ?? (isAuditSink(store) ? store : new MemoryAuditSink());
  const maxArgumentsSize = options.maxArgumentsSize ?? 1_000_000;
  if (!Number.isSafeInteger(maxArgumentsSize) || maxArgumentsSize < 2)
    fail("Expected `maxArgumentsSize` to be an integer of at least 2.");
  const maxResultSize = options.maxResultSize ?? 1_000_000;
  if (!Number.isSafeInteger(maxResultSize) || maxResultSize < 4)
    fail("Expected `maxResultSize` to be an integer of at least 4.");
  const skills = new Map<string, CompiledSkill>();
  for (const skill of options.skills ?? []) {
    const compiled = compileSkill(skill, shared.tools);
    if (skills.has(compiled.skill.name))
      throw new LeashError("invalid_skill", `Two skills are named \`${compiled.skill.name}\`.`);
    skills.set(compiled.skill.name, compiled);
  }
  return {
    ...shared,
    planner,
    store,
    audit,
    storeIsSink: store !== undefined && (audit as unknown) === store,
    done,
    skills,
    maxArgumentsSize,
    maxResultSize,
    recordModelText: options.recordModelText === true,
    feed: SILENT_FEED,
    ...(budget === undefined ? {} : { budget }),
    ...(sponsor === undefined ? {} : { sponsor: sponsor as string }),
  };
}

/** The keys of `agent.run(goal, options)`. */
const RUN_OPTIONS = ["runId", "principal", "signal", "limits"] as const;
/** The keys of `agent.do(skill, input, options)`. */
const DO_OPTIONS = ["principal", "limits"] as const;

/**
 * Refuses, before anything is read or written, options of `run`, `resume` or `do` with a key they do
 * not take (`runld` for `runId` would start a run under a random id), and returns them as they are.
 */
export function checkCallOptions<T>(options: T, call: "run" | "do"): T {
  const known = call === "run" ? RUN_OPTIONS : DO_OPTIONS;
  checkOptionKeys(options, known, `agent.${call}(..., options)`);
  return options;
}
