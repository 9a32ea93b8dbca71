import type { SchemaCompiler, SchemaValidator } from "../tools/schema-validator.js";
import { createSchemaCompiler } from "../tools/schema-validator.js";
import { linearPatterns } from "./linear-patterns.js";

let compiler: SchemaCompiler | undefined;

/**
 * Compiles a schema an MCP server listed into the validator leash checks its tool's arguments with:
 * the same dialects and checks as an app's tools, but with its patterns matched by RE2
 * ({@link linearPatterns}), so that validation takes time linear in the arguments whatever the server
 * wrote. A schema with a pattern RE2 cannot match is refused (`invalid_tool`), as one that does not
 * compile is.
 */
export function compileServerSchema(schema: unknown, what: string): SchemaValidator {
  compiler ??= createSchemaCompiler({ patterns: linearPatterns });
  return compiler.compile(schema, what);
}
