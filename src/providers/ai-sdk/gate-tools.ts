import { LeashError, checkOptionKeys, messageOf } from "../../errors/index.js";
import type { Json } from "../../json/index.js";
import type { JsonSchema } from "../../tools/schema-validator.js";
import { approvedInMessages } from "./approved-in-messages.js";
import { executedOutput, gateAnswerText } from "../common/gate-answer-text.js";
import { withCallId } from "../common/gate-call-id.js";
import type { GateSessionLike, GateToolLike, GateToolsLike } from "../common/gate-session-like.js";
import { gateToolsOf } from "../common/gate-session-like.js";

/**
 * A Standard Schema (with Standard JSON Schema) that gives a gate tool's JSON Schema to the SDK and
 * accepts any input: leash validates the arguments itself, in `session.call`, so that a call with bad
 * arguments is refused there (`invalid_arguments`), recorded, and told to the model.
 */
export interface AiSdkGateInputSchema {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: "leash";
    readonly validate: (value: unknown) => { readonly value: unknown };
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** The options the SDK gives `needsApproval` (ai 6 and 7), as far as the adapter reads them. */
export interface AiSdkApprovalOptions {
  readonly toolCallId: string;
  readonly messages: readonly unknown[];
}

/** The options the SDK gives `execute`, as far as the adapter reads them. */
export interface AiSdkExecuteOptions {
  readonly toolCallId: string;
}

/** One tool of {@link gateTools}: an AI SDK tool whose approval and execution go through the session. */
export interface AiSdkGateTool {
  readonly description: string;
  readonly inputSchema: AiSdkGateInputSchema;
  readonly needsApproval: (input: unknown, options: AiSdkApprovalOptions) => Promise<boolean>;
  readonly execute: (input: unknown, options: AiSdkExecuteOptions) => Promise<unknown>;
}

/** The AI SDK `ToolSet` of a gate's tools, keyed by their names. */
export type AiSdkGateToolSet = Record<string, AiSdkGateTool>;

/** Options of {@link gateTools}. */
export interface GateToolsOptions {
  /** The gate's tools, for a session that does not list them itself (`session.tools`). */
  tools?: GateToolsLike;
}

function inputSchemaOf(parameters: JsonSchema): AiSdkGateInputSchema {
  // A fresh copy each time: the SDK adds to the schema it is given (`additionalProperties`).
  const give = (): Record<string, unknown> => structuredClone(parameters) as Record<string, unknown>;
  return {
    "~standard": {
      version: 1,
      vendor: "leash",
      validate: (value) => ({ value }),
      jsonSchema: { input: give, output: give },
    },
  };
}

function checkCallId(toolCallId: unknown, name: string): string {
  if (typeof toolCallId !== "string" || toolCallId === "") {
    throw new LeashError("invalid_option", `gateTools: the SDK gave the call of \`${name}\` no \`toolCallId\`.`);
  }
  return toolCallId;
}

function gateTool(session: GateSessionLike, tool: GateToolLike): AiSdkGateTool {
  const { name } = tool;
  return {
    description: tool.description,
    inputSchema: inputSchemaOf(tool.parameters),
    needsApproval: async (input, options) => {
      const callId = checkCallId(options?.toolCallId, name);
      // The SDK asks again once the app sent back an approving `tool-approval-response`, and would
      // turn a `false` into a denial of the call. The response authorises nothing by itself: `true`
      // here lets the call reach `execute`, where `session.call` runs it only under leash's own grant.
      if (approvedInMessages(options?.messages, callId)) return true;
      return await session.needsApproval(callId, name, input as Json);
    },
    execute: async (input, options) => {
      const callId = checkCallId(options?.toolCallId, name);
      const answer = await withCallId(callId, () => session.call(callId, name, input as Json));
      return answer.status === "executed" ? executedOutput(answer) : gateAnswerText(answer);
    },
  };
}

/**
 * An AI SDK `ToolSet` of a gate's tools, keyed by their names, whose `needsApproval` and `execute` go
 * through the session with the SDK's `toolCallId` as the call id (API.md section 18). A call the
 * policy sends to a person stops `generateText` with the SDK's own `tool-approval-request`; the call
 * runs only once leash holds an allowed grant of its digest (`store.answer`, `leash approve`, the
 * inbox) and the app sends the SDK's approving `tool-approval-response`; sent again with the same
 * messages, it gives back the recorded result. A refusal, a call leash holds no grant for, a stop and a
 * failure are the tool's result, a line that names the outcome and why. The tools are the session's
 * own (`session.tools`) when it lists them, else `options.tools`: the tools the `Gate` was built with.
 *
 * @example
 * const session = await gate.session(conversationId);
 * const result = await generateText({ model, tools: gateTools(session, { tools }), messages, stopWhen: stepCountIs(5) });
 */
export function gateTools(session: GateSessionLike, options: GateToolsOptions = {}): AiSdkGateToolSet {
  if (typeof session !== "object" || session === null) {
    throw new LeashError("invalid_option", "gateTools: expected a gate's session (`await gate.session(runId)`).");
  }
  for (const method of ["call", "needsApproval"] as const) {
    if (typeof session[method] !== "function") {
      throw new LeashError("invalid_option", `gateTools: expected a gate's session, which has \`${method}\`.`);
    }
  }
  checkOptionKeys(options, ["tools"], "gateTools options");
  let tools: GateToolLike[];
  try {
    tools = gateToolsOf(session, options.tools);
  } catch (error) {
    if (error instanceof LeashError) throw error;
    throw new LeashError("invalid_option", `gateTools: listing the session's tools threw: ${messageOf(error)}.`);
  }
  const set: AiSdkGateToolSet = {};
  for (const tool of tools) set[tool.name] = gateTool(session, tool);
  return set;
}
