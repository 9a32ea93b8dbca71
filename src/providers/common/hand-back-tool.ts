import type { Json } from "../../json/index.js";
import { isJsonObject } from "../../json/index.js";
import type { ModelRequest } from "../../models/model-client.js";
import type { JsonSchema } from "../../tools/schema-validator.js";

/** The hand-back tool's name unless an app tool has it, or the adapter is given another. */
export const DEFAULT_HAND_BACK_NAME = "hand_back";

/** The tool a model calls to hand back its output, when the request has an `output` schema. */
export interface HandBackTool {
  name: string;
  description: string;
  /** Always an object schema: a schema that is not one is wrapped as `{ output }`. */
  parameters: JsonSchema;
  /** Whether the output is the `output` property of the call's arguments. */
  wrapped: boolean;
}

function isObjectSchema(schema: JsonSchema): boolean {
  return isJsonObject(schema) && (schema as { type?: unknown }).type === "object";
}

/**
 * The hand-back tool of a request, or `undefined` when the request has no output schema. Its name is
 * `preferred` unless an app tool has that name; then `preferred_2`, `preferred_3`, ...: it never
 * collides with an app tool, and the same request always gets the same name.
 */
export function handBackTool(
  request: ModelRequest,
  preferred: string = DEFAULT_HAND_BACK_NAME,
): HandBackTool | undefined {
  if (request.output === undefined) return undefined;
  const taken = new Set(request.tools.map((tool) => tool.name));
  let name = preferred;
  for (let n = 2; taken.has(name); n++) name = `${preferred}_${n}`;
  const wrapped = !isObjectSchema(request.output);
  const parameters: JsonSchema = wrapped
    ? { type: "object", properties: { output: request.output }, required: ["output"], additionalProperties: false }
    : request.output;
  return {
    name,
    description: "Call this once the work is done, to hand back the output in the required shape.",
    parameters,
    wrapped,
  };
}

/** The output a hand-back call carries: its arguments, or their `output` when the schema was wrapped. */
export function handBackOutput(args: Json, tool: HandBackTool): Json {
  if (!tool.wrapped) return args;
  return isJsonObject(args) && Object.hasOwn(args, "output") ? (args.output ?? null) : args;
}

/** Whether a hand-back tool name is acceptable: the rule model tool-calling interfaces share. */
export function isToolName(name: unknown): name is string {
  return typeof name === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(name);
}
