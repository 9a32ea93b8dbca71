import { tool } from "../../src/index.js";
import type { JsonSchema, Tool, ToolContext } from "../../src/index.js";

/** The arguments of a tool that takes one text and nothing else. */
export const TEXT_ARGUMENTS: JsonSchema = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
  additionalProperties: false,
};

/** Options of {@link writeTextTool}. */
export interface WriteTextToolOptions {
  name: string;
  description?: string;
  idempotent?: boolean;
  /** The tool's effect on the world; what it returns is the tool's result. */
  onWrite(text: string, context: ToolContext): unknown;
}

/**
 * A write tool that takes `{ text }`: the tool most tests need to see a write pause, run once, or
 * be refused.
 */
export function writeTextTool(options: WriteTextToolOptions): Tool<{ text: string }> {
  return tool<{ text: string }>({
    name: options.name,
    ...(options.description === undefined ? {} : { description: options.description }),
    parameters: TEXT_ARGUMENTS,
    effect: "write",
    ...(options.idempotent === undefined ? {} : { idempotent: options.idempotent }),
    execute: ({ text }, context) => options.onWrite(text, context),
  });
}
