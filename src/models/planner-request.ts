import type { PlannerContext } from "./planner.js";
import type { RunState } from "../state/run-state.js";
import type { ToolDescription } from "../tools/tool.js";
import { conversationOf } from "./conversation.js";
import type { ModelRequest } from "./model-client.js";

/** The system prompt of a model planner given no purpose. */
export const DEFAULT_PURPOSE =
  "You are an agent: call the tools you are given to reach the goal, then hand back the result.";

/** What the model is first told: the skill's description, if any, then the goal (a skill's brief). */
function taskText(goal: string, skill: PlannerContext["skill"]): string {
  const description = skill?.description.trim() ?? "";
  return description === "" ? goal : `${description}\n\n${goal}`;
}

/**
 * The request a model planner sends: the purpose as the system prompt, the conversation built from
 * the run's saved state (the task first), the tools, and the skill's output schema as the shape to
 * hand back.
 */
export function plannerRequest(
  state: RunState,
  tools: ToolDescription[],
  context: PlannerContext,
  options: { purpose: string; maxOutputTokens: number | undefined },
): ModelRequest {
  const request: ModelRequest = {
    system: options.purpose,
    messages: conversationOf(state, taskText(state.goal, context.skill)),
    tools,
  };
  const output = context.skill?.output;
  if (output !== undefined) request.output = output;
  if (options.maxOutputTokens !== undefined) request.maxOutputTokens = options.maxOutputTokens;
  return request;
}
