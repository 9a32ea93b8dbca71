import { LeashError, messageOf } from "../../errors/index.js";
import type { JsonSchema } from "../../tools/schema-validator.js";
import type { StandardTypedSchema } from "../../tools/standard-schema.js";
import { isStandardSchema } from "../../tools/standard-schema.js";
import type { ToolParameters } from "../../tools/tool.js";

// The marker `jsonSchema()` and `zodSchema()` of `@ai-sdk/provider-utils` put on their schemas: a
// registered symbol, so it is the same in every copy of the SDK and needs no import of it.
const AI_SDK_SCHEMA = Symbol.for("vercel.ai.schema");

/** What the AI SDK's `validate` of a schema gives. */
type AiSdkValidation = { success: true; value: unknown } | { success: false; error: unknown };

function invalid(what: string, problem: string, cause?: unknown): never {
  throw new LeashError("invalid_tool", `Expected ${what} to be ${problem}.`, cause === undefined ? {} : { cause });
}

function isThenable(value: unknown): boolean {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * A Standard Schema over an AI SDK `Schema` that has its own check: its JSON Schema is what leash
 * validates and shows, and its `validate` is the typed check leash runs at the gates, whose parsed value
 * `execute` gets (as the SDK itself would give it).
 */
function checkedSchema(jsonSchema: JsonSchema, validate: (value: unknown) => unknown): StandardTypedSchema {
  const standard = {
    version: 1 as const,
    vendor: "ai-sdk",
    validate: async (value: unknown) => {
      const result = (await validate(value)) as AiSdkValidation;
      if (result.success) return { value: result.value };
      return { issues: [{ message: messageOf(result.error) }] };
    },
    jsonSchema: { input: () => structuredClone(jsonSchema) as Record<string, unknown> },
  };
  return { "~standard": standard };
}

/**
 * The parameters of a leash tool from an AI SDK tool's `inputSchema`, read once and synchronously: a
 * zod 4 schema or any Standard Schema (converted by leash to the JSON Schema of its input, as
 * `z.toJSONSchema(schema, { io: "input" })` does), a `jsonSchema()` or `zodSchema()` wrapper (its
 * `.jsonSchema`, with its `validate` as the typed check), or a lazy schema (a function giving one of
 * these). No schema means no arguments, as in the SDK.
 *
 * @param what names the schema in an error, e.g. "the inputSchema of tool `send_email`".
 * @throws LeashError `invalid_tool` for anything else, or a schema that only a promise gives.
 */
export function aiSdkParameters(inputSchema: unknown, what: string): ToolParameters | undefined {
  if (inputSchema === undefined || inputSchema === null) return undefined;
  let schema: unknown = inputSchema;
  if (typeof schema === "function" && !isStandardSchema(schema)) {
    try {
      schema = (schema as () => unknown)();
    } catch (error) {
      invalid(what, `a schema, but the lazy schema threw: ${messageOf(error)}`, error);
    }
  }
  if (isStandardSchema(schema)) return schema;
  if (typeof schema !== "object" || schema === null || (schema as Record<symbol, unknown>)[AI_SDK_SCHEMA] !== true) {
    return invalid(what, "a zod 4 schema, a Standard Schema, or an AI SDK `jsonSchema()` / `zodSchema()` schema");
  }
  let jsonSchema: unknown;
  let validate: unknown;
  try {
    ({ jsonSchema, validate } = schema as { jsonSchema: unknown; validate?: unknown });
  } catch (error) {
    return invalid(what, `readable, but reading its JSON Schema threw: ${messageOf(error)}`, error);
  }
  // A tool's schema is read once, when the tool is built: one that only a promise gives cannot be.
  if (isThenable(jsonSchema)) return invalid(what, "a JSON Schema given at once, not a promise of one");
  if (typeof jsonSchema !== "object" || jsonSchema === null || Array.isArray(jsonSchema)) {
    return invalid(what, "a schema whose `.jsonSchema` is a JSON Schema object");
  }
  if (typeof validate !== "function") return jsonSchema as JsonSchema;
  return checkedSchema(jsonSchema as JsonSchema, (value) =>
    (validate as (value: unknown) => unknown).call(schema, value),
  );
}
