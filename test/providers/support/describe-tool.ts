// A tool as the core describes it to a model, for port-level tests that hand-write a ModelRequest.
import type { JsonSchema } from "../../../src/tools/schema-validator.js";
import type { ToolDescription } from "../../../src/tools/tool.js";

/** Parameters with one required string, `path`: what most port tests' read tool takes. */
export const PATH_PARAMETERS: JsonSchema = {
  type: "object",
  properties: { path: { type: "string" } },
  required: ["path"],
};

/**
 * A read-only, idempotent, free tool with no scopes, as a model sees it.
 *
 * @example
 * const request = { system: "You read.", messages: [{ role: "user", content: "Read a." }], tools: [describeTool("read")] };
 */
export function describeTool(
  name: string,
  description = "",
  parameters: JsonSchema = PATH_PARAMETERS,
): ToolDescription {
  return { name, description, parameters, effect: "read", scopes: [], cost: 0, idempotent: true };
}
