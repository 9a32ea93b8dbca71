import type { Json } from "../json/index.js";
import { linearPatterns } from "../mcp/linear-patterns.js";
import { createSchemaCompiler } from "../tools/schema-validator.js";
import type { SchemaCompiler, SchemaValidator } from "../tools/schema-validator.js";

let compiler: SchemaCompiler | undefined;

/**
 * Compiles the argument schema a step kept for checking an edit where the tool is not at hand
 * (`Step.argsSchema`): as the tool compiled it (unknown keywords and formats ignored, as JSON Schema
 * says), but with RE2 as its pattern engine, since the edit is a person's text checked in whatever
 * process records the answer (the inbox, the command line), where no pattern may hang it.
 *
 * @throws LeashError `invalid_option` when the schema does not compile so (a pattern RE2 cannot match)
 */
export function compileEditSchema(schema: Json, what: string): SchemaValidator {
  compiler ??= createSchemaCompiler({ patterns: linearPatterns });
  return compiler.compile(schema, what, { errorCode: "invalid_option" });
}
