import { LeashError, messageOf } from "../../errors/index.js";
import type { Json } from "../../json/index.js";
import { executedOutput, gateAnswerText } from "../common/gate-answer-text.js";
import { withCallId } from "../common/gate-call-id.js";
import type { GateCallAnswerLike, GateSessionLike, GateToolLike } from "../common/gate-session-like.js";
import { gateToolsOf } from "../common/gate-session-like.js";
import type { JsonSchema } from "../../tools/schema-validator.js";
import type { AgentsGateTool, AgentsObjectSchema, AgentsToolCallDetails } from "./function-tool.js";

function checkCallId(callId: unknown, name: string): string {
  if (typeof callId !== "string" || callId === "") {
    throw new LeashError("invalid_option", `gateTools: the SDK gave the call of \`${name}\` no call id.`);
  }
  return callId;
}

/**
 * The model's argument text as leash's arguments. Text that is not JSON goes to the session as it is,
 * so that the call is refused there (`invalid_arguments`), recorded, and told to the model.
 */
function argumentsOf(input: string): Json {
  try {
    return JSON.parse(input) as Json;
  } catch {
    return input;
  }
}

/** A tool's output as the SDK sends it to the model: a string as it is, anything else as JSON text. */
function outputOf(answer: GateCallAnswerLike): string {
  if (answer.status !== "executed") return gateAnswerText(answer);
  const output = executedOutput(answer);
  return typeof output === "string" ? output : JSON.stringify(output ?? null);
}

/**
 * A fresh copy of a tool's schema (the SDK's model adapters may change what they are given), with the
 * keywords the SDK's type spells out filled in as their JSON Schema defaults, which change nothing:
 * no `required` is `[]`, no `additionalProperties` is `true`. Leash's own tools are object schemas.
 */
function objectSchemaOf(parameters: JsonSchema): AgentsObjectSchema {
  const copy = (typeof parameters === "object" ? structuredClone(parameters) : {}) as Record<string, unknown>;
  return {
    ...copy,
    type: "object",
    properties: (copy.properties ?? {}) as Record<string, unknown>,
    required: (copy.required ?? []) as string[],
    additionalProperties: (copy.additionalProperties ?? true) as boolean,
  };
}

function gateTool(session: GateSessionLike, tool: GateToolLike): AgentsGateTool {
  const { name } = tool;
  return {
    type: "function",
    name,
    description: tool.description,
    parameters: objectSchemaOf(tool.parameters),
    strict: false,
    // Raises the SDK's interruption for a call a person must answer; the request is recorded in leash
    // then. After `state.approve(...)` the SDK calls `invoke` without asking again, and `session.call`
    // decides there: the SDK's approval alone authorises nothing.
    needsApproval: async (_runContext, input, callId) =>
      await session.needsApproval(checkCallId(callId, name), name, input as Json),
    invoke: async (_runContext, input, details?: AgentsToolCallDetails) => {
      const callId = checkCallId(details?.toolCall?.callId, name);
      const answer = await withCallId(callId, () => session.call(callId, name, argumentsOf(input)));
      return outputOf(answer);
    },
    isEnabled: () => Promise.resolve(true),
  };
}

/**
 * Function tools of a gate's tools for `@openai/agents` (API.md section 18), one per tool, to give an
 * `Agent` as its `tools`. A call the policy sends to a person raises the SDK's interruption (the
 * request is recorded in leash, where the store, `leash approve` and the inbox answer it); the call
 * runs only when leash holds an allowed grant of its digest, so `state.approve(...)` alone runs
 * nothing: the model is told the call was not approved. `state.reject(...)` never reaches leash, and
 * the request stays pending there until a person answers it. A refusal, a stop and a failure are the
 * tool's output, a line that names the outcome and why.
 *
 * @example
 * const session = await gate.session(conversationId);
 * const agent = new Agent({ name: "Assistant", instructions, tools: gateTools(session) });
 * let result = await run(agent, "Refund order 42.");
 */
export function gateTools(session: GateSessionLike): AgentsGateTool[] {
  if (typeof session !== "object" || session === null) {
    throw new LeashError("invalid_option", "gateTools: expected a gate's session (`await gate.session(runId)`).");
  }
  for (const method of ["call", "needsApproval"] as const) {
    if (typeof session[method] !== "function") {
      throw new LeashError("invalid_option", `gateTools: expected a gate's session, which has \`${method}\`.`);
    }
  }
  try {
    return gateToolsOf(session).map((tool) => gateTool(session, tool));
  } catch (error) {
    if (error instanceof LeashError) throw error;
    throw new LeashError("invalid_option", `gateTools: listing the session's tools threw: ${messageOf(error)}.`);
  }
}
