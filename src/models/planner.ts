import type { Decision } from "../decisions/decision.js";
import type { SkillInfo } from "../skills/skill.js";
import type { RunState } from "../state/run-state.js";
import type { ToolDescription } from "../tools/tool.js";
import type { ModelClient, ModelRequest, ModelResponse, Price } from "./model-client.js";

/** Options of one `ctx.callModel` call. */
export interface CallModelOptions {
  /** Money per million tokens; default `client.price`, else 0. */
  price?: Price;
  /** Whether this call's `model_called` record carries the full request and response (default: the agent's `recordModelText`, else digests only). */
  recordText?: boolean;
}

/** What a planner is given besides the state and the tools. */
export interface PlannerContext {
  /** The run's abort signal. */
  signal: AbortSignal;
  /** The skill being done, if any. */
  skill?: SkillInfo;
  /** The person the work runs as, if any. */
  principal?: string;
  /**
   * Calls a model through the guards, charges its usage against the limits and audits it. A guard's
   * block or a limit reached here ends the run even if the planner catches the error.
   */
  callModel(client: ModelClient, request: ModelRequest, options?: CallModelOptions): Promise<ModelResponse>;
}

/** Decides the next step of a run from a copy of its state and the tools' descriptions. */
export type Planner = (
  state: RunState,
  tools: ToolDescription[],
  context: PlannerContext,
) => Decision | Promise<Decision>;
