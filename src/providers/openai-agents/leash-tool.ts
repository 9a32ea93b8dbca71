import { LeashError, messageOf } from "../../errors/index.js";
import type { Json } from "../../json/index.js";
import { checkDeclaration } from "../common/tool-declaration.js";
import type { ToolDeclaration } from "../common/tool-declaration.js";
import type { JsonSchema } from "../../tools/schema-validator.js";
import { Tool } from "../../tools/tool.js";
import { callIdOf } from "../common/gate-call-id.js";
import type { AgentsFunctionToolLike, AgentsRunContextLike, AgentsToolCallDetails } from "./function-tool.js";

/** What leash needs to know of a function tool that the SDK does not say: its effect and bounds. */
export type AgentsLeashToolOptions = ToolDeclaration;

/**
 * Turns a function tool of `@openai/agents` into a leash tool for a `Gate`'s `tools` (API.md section
 * 18). Its JSON Schema is the function tool's `parameters`, read once, now; its `execute` calls the
 * function tool's `invoke` with the arguments as JSON text, the session's call id as the SDK's call
 * id and leash's `signal` as the SDK's. The run context the SDK would give is not leash's to give: the
 * tool gets one whose `context` is undefined. A tool's error is the call's `tool_error`.
 *
 * @throws LeashError `invalid_option` for an unknown option, `invalid_tool` for a tool leash cannot build.
 * @example
 * import { tool } from "@openai/agents";
 * const sendEmail = tool({ name: "send_email", description: "Send an email.", parameters: z.object({ to: z.string() }), execute: send });
 * const gate = new Gate({ tools: [leashTool(sendEmail, { name: "send_email", effect: "external" })], store });
 */
export function leashTool(functionTool: AgentsFunctionToolLike, options: AgentsLeashToolOptions): Tool {
  if (typeof functionTool !== "object" || functionTool === null) {
    throw new LeashError(
      "invalid_tool",
      "leashTool: expected a function tool (made by `tool({ ... })` of `@openai/agents`).",
    );
  }
  const { name, effect, scopes, cost, idempotent, label } = checkDeclaration(options);
  let type: unknown;
  let description: unknown;
  let parameters: unknown;
  let invoke: unknown;
  try {
    ({ type, description, parameters, invoke } = functionTool);
  } catch (error) {
    throw new LeashError("invalid_tool", `leashTool: reading ${label} threw: ${messageOf(error)}.`, { cause: error });
  }
  if (type !== "function" || typeof invoke !== "function") {
    throw new LeashError(
      "invalid_tool",
      `leashTool: ${label} is not a function tool with \`invoke\` (hosted and computer tools cannot run in leash).`,
    );
  }
  if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
    throw new LeashError("invalid_tool", `leashTool: ${label} has no JSON Schema in \`parameters\`.`);
  }
  // A copy, so that a later change of the SDK's object changes neither the schema nor the digests.
  const schema = structuredClone(parameters) as JsonSchema;
  const run = invoke as (runContext: AgentsRunContextLike, input: string, details: AgentsToolCallDetails) => unknown;
  const toolName = typeof name === "string" ? name : "";
  return new Tool<Record<string, Json>>({
    name,
    ...(typeof description === "string" ? { description } : {}),
    parameters: schema,
    effect,
    ...(scopes === undefined ? {} : { scopes }),
    ...(cost === undefined ? {} : { cost }),
    ...(idempotent === undefined ? {} : { idempotent }),
    execute: async (args, context) => {
      const input = JSON.stringify(args);
      const callId = callIdOf(context);
      const details: AgentsToolCallDetails = {
        toolCall: { type: "function_call", callId, name: toolName, arguments: input },
        signal: context.signal,
      };
      return await run.call(functionTool, { context: undefined }, input, details);
    },
  });
}
