import { LeashError, messageOf } from "../../errors/index.js";
import type { Json } from "../../json/index.js";
import { Tool } from "../../tools/tool.js";
import { checkDeclaration } from "../common/tool-declaration.js";
import type { ToolDeclaration } from "../common/tool-declaration.js";
import { isAsyncIterable } from "../common/is-async-iterable.js";
import { aiSdkParameters } from "./ai-sdk-input-schema.js";
import { callIdOf } from "../common/gate-call-id.js";

/** An AI SDK tool as `leashTool` reads it: made by the SDK's `tool({ ... })`, typed structurally. */
export interface AiSdkToolLike {
  readonly description?: string | undefined;
  readonly inputSchema?: unknown;
  // `never` parameters, so that a tool of any input and options type fits.
  readonly execute?: ((input: never, options: never) => unknown) | undefined;
}

/** What leash needs to know of an AI SDK tool that the SDK does not say: its name (the key it has in the app's `ToolSet`), effect and bounds. */
export type LeashToolOptions = ToolDeclaration;

/** The value an AI SDK tool's execute gave: a streaming tool's last output is its result, as in the SDK. */
async function finalOutput(output: unknown): Promise<unknown> {
  if (!isAsyncIterable(output)) return await output;
  let last: unknown;
  for await (const value of output) last = value;
  return last;
}

/**
 * Turns an AI SDK tool into a leash tool for a `Gate`'s `tools` (API.md section 18). Its JSON Schema
 * comes from the tool's `inputSchema`, read once, now (zod 4 and other Standard Schemas as the JSON
 * Schema of their input, a `jsonSchema()` wrapper's `.jsonSchema`); its `execute` is the tool's, given
 * the session's call id as `toolCallId` and leash's `signal` as `abortSignal`. A streaming tool's last
 * output is the result. A tool without `execute` cannot run in leash and is refused.
 *
 * @throws LeashError `invalid_option` for an unknown option, `invalid_tool` for a tool leash cannot build.
 * @example
 * import { tool as aiTool } from "ai";
 * import { z } from "zod";
 * const sendEmail = aiTool({
 *   description: "Send an email.",
 *   inputSchema: z.object({ to: z.string(), body: z.string() }),
 *   execute: async ({ to, body }) => mailer.send(to, body),
 * });
 * const gate = new Gate({ tools: [leashTool(sendEmail, { name: "send_email", effect: "external" })], store });
 */
export function leashTool(aiTool: AiSdkToolLike, options: LeashToolOptions): Tool {
  if (typeof aiTool !== "object" || aiTool === null) {
    throw new LeashError("invalid_tool", "leashTool: expected an AI SDK tool (made by `tool({ ... })` of `ai`).");
  }
  const { name, effect, scopes, cost, idempotent, label } = checkDeclaration(options);
  let description: unknown;
  let inputSchema: unknown;
  let execute: unknown;
  try {
    ({ description, inputSchema, execute } = aiTool);
  } catch (error) {
    throw new LeashError("invalid_tool", `leashTool: reading ${label} threw: ${messageOf(error)}.`, { cause: error });
  }
  if (typeof execute !== "function") {
    throw new LeashError(
      "invalid_tool",
      `leashTool: ${label} has no \`execute\`: a tool the app runs itself (a client-side tool) cannot run in leash.`,
    );
  }
  const parameters = aiSdkParameters(inputSchema, `the inputSchema of ${label}`);
  const run = execute as (input: unknown, callOptions: unknown) => unknown;
  return new Tool<Record<string, Json>>({
    name,
    ...(description === undefined ? {} : { description: description as string }),
    ...(parameters === undefined ? {} : { parameters }),
    effect,
    ...(scopes === undefined ? {} : { scopes }),
    ...(cost === undefined ? {} : { cost }),
    ...(idempotent === undefined ? {} : { idempotent }),
    // The SDK's own options of a call: its call id is the session's, its messages are not leash's to give.
    execute: (args, context) =>
      finalOutput(run.call(aiTool, args, { toolCallId: callIdOf(context), messages: [], abortSignal: context.signal })),
  });
}
