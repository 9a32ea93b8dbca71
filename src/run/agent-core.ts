import type { Approver } from "../approvals/approval.js";
import type { AuditRecord } from "../audit/audit-record.js";
import type { AuditSink } from "../audit/audit-sink.js";
import type { Guard } from "../guards/guard.js";
import type { Json } from "../json/index.js";
import type { Limits } from "../limits/limits.js";
import type { Planner } from "../models/planner.js";
import type { Policy } from "../policy/policy.js";
import type { Skill } from "../skills/skill.js";
import type { RunState } from "../state/run-state.js";
import type { RunStore } from "../stores/run-store.js";
import type { Toolset } from "../tools/toolset.js";
import type { SchemaValidator } from "../tools/schema-validator.js";

/** The done criterion: a string refuses the answer, and says why. */
export type DoneCriterion = (answer: Json, state: RunState) => string | null | undefined;

/** Who a run is, as the `budget` option is told when the run starts. */
export interface BudgetRun {
  runId: string;
  goal: string;
  principal: string | undefined;
  /** The agent's name (a gate's, for a gate's session). */
  agent: string;
}

/**
 * Names the shared budget a run spends from (API.md section 17), or none (`undefined`); asked once,
 * when the run starts.
 */
export type BudgetOption = (run: BudgetRun) => string | undefined;

/** A skill with its output schema compiled once. */
export interface CompiledSkill {
  skill: Skill<never, never>;
  output: SchemaValidator | undefined;
  tools: Toolset;
}

/** Everything the run loop needs from an agent, checked and defaulted once. */
export interface AgentCore {
  name: string;
  tools: Toolset;
  planner: Planner;
  policy: Policy;
  limits: Limits;
  store: RunStore | undefined;
  audit: AuditSink;
  /** Whether the store is the sink too: its saves then carry the records, and `append` is never called. */
  storeIsSink: boolean;
  approver: Approver | undefined;
  guards: readonly Guard[];
  done: DoneCriterion | undefined;
  skills: Map<string, CompiledSkill>;
  clock: () => Date;
  randomId: () => string;
  /** The person the agent's work is for (API.md section 19), kept in each run it starts. */
  sponsor?: string;
  /** The largest canonical size of a tool call's arguments, in characters. */
  maxArgumentsSize: number;
  /** The largest JSON size of one tool result, in characters. */
  maxResultSize: number;
  /** Whether `model_called` records carry the full request and response, not only their digests. */
  recordModelText: boolean;
  /** Names the shared budget each new run spends from; none: runs spend from no budget. */
  budget?: BudgetOption;
  /** Where the live feed goes: text deltas of a streaming model, and each audit record once written. */
  feed: RunFeed;
}

/** The live feed of an agent's runs (`agent.on("text")`, `agent.on("record")`). */
interface RunFeed {
  /** Whether anyone listens for text deltas. */
  wantsText(): boolean;
  text(event: { runId: string; step: number; delta: string }): void;
  /** Whether anyone listens for records. */
  wantsRecords(): boolean;
  records(records: readonly AuditRecord[]): void;
}

/** A feed nobody listens to. */
export const SILENT_FEED: RunFeed = {
  wantsText: () => false,
  text: () => undefined,
  wantsRecords: () => false,
  records: () => undefined,
};
