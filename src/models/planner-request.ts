import type { Json } from "../json/index.js";
import { isJsonObject } from "../json/index.js";
import type { PlannerContext } from "../run/agent-core.js";
import type { RunState } from "../state/run-state.js";
import type { ToolDescription } from "../tools/tool.js";
import type { ModelMessage, ModelRequest } from "./model-client.js";

/** The system prompt of a model planner given no purpose. */
export const DEFAULT_PURPOSE =
  "You are an agent: call the tools you are given to reach the goal, then hand back the result.";

function json(value: Json): string {
  return JSON.stringify(value);
}

/**
 * Turns the run's observations into the conversation so far: each decision as what the model said,
 * each outcome as what came back. Only observations are used, never the raw steps, so a result a
 * guard withheld reaches the model as its outcome (`withheld`) and the reason, never its content.
 */
export function observationMessages(observations: readonly Json[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const observation of observations) {
    if (!isJsonObject(observation)) continue;
    const { args, answer, ...outcome } = observation;
    if (typeof observation.tool === "string") {
      messages.push({ role: "assistant", content: json({ calls: [{ tool: observation.tool, args: args ?? {} }] }) });
      messages.push({ role: "tool", content: json(outcome) });
    } else {
      messages.push({ role: "assistant", content: json({ handBack: answer ?? null }) });
      messages.push({ role: "user", content: json(outcome) });
    }
  }
  return messages;
}

/** What the model is first told: the skill's description, if any, then the goal (a skill's brief). */
export function taskMessage(goal: string, skill: PlannerContext["skill"]): ModelMessage {
  const description = skill?.description.trim() ?? "";
  return { role: "user", content: description === "" ? goal : `${description}\n\n${goal}` };
}

/**
 * The request a model planner sends: the purpose as the system prompt, the task, the observations
 * so far as messages, the tools, and the skill's output schema as the shape to hand back.
 */
export function plannerRequest(
  state: RunState,
  tools: ToolDescription[],
  context: PlannerContext,
  options: { purpose: string; maxOutputTokens: number | undefined },
): ModelRequest {
  const request: ModelRequest = {
    system: options.purpose,
    messages: [taskMessage(state.goal, context.skill), ...observationMessages(state.observations())],
    tools,
  };
  const output = context.skill?.output;
  if (output !== undefined) request.output = output;
  if (options.maxOutputTokens !== undefined) request.maxOutputTokens = options.maxOutputTokens;
  return request;
}
