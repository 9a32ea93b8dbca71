import { LeashError } from "../errors/index.js";
import { canonicalOfJson } from "../json/index.js";
import type { Json } from "../json/index.js";
import { linearPatterns } from "../mcp/linear-patterns.js";
import { createSchemaCompiler } from "../tools/schema-validator.js";
import type { SchemaCompiler, SchemaValidator } from "../tools/schema-validator.js";

/** The longest schema a standing grant may carry, in characters of its canonical JSON. */
export const MAX_GRANT_SCHEMA_LENGTH = 65_536;

let compiler: SchemaCompiler | undefined;

/**
 * Compiles a standing grant's `args` schema. A grant's schema is matched inside every agent that
 * asks for approval, against arguments a model wrote, so its patterns are matched with RE2 (linear
 * in the text: no pattern can hang the agents) and its size is bounded. It is compiled strictly: a
 * keyword or format the dialect does not know is refused when the grant is given, since a grant
 * whose `maximun` were ignored would approve every amount.
 *
 * @throws LeashError `invalid_option` when the schema is too long, does not compile, or has a pattern RE2 cannot match
 */
export function compileGrantSchema(schema: Json, what: string): SchemaValidator {
  const length = canonicalOfJson(schema).length;
  if (length > MAX_GRANT_SCHEMA_LENGTH)
    throw new LeashError(
      "invalid_option",
      `Expected ${what} to be at most ${MAX_GRANT_SCHEMA_LENGTH} characters of JSON, but it is ${length}.`,
    );
  compiler ??= createSchemaCompiler({ patterns: linearPatterns, strictSchema: true });
  return compiler.compile(schema, what, { errorCode: "invalid_option" });
}
