import { LeashError, messageOf } from "../errors/index.js";

/**
 * A schema of any library that implements Standard Schema (`~standard`), as leash sees it: typed
 * structurally, so that leash never imports zod or any other schema library. A zod 4 schema is one.
 * To be a tool's `parameters` it must also implement Standard JSON Schema (`~standard.jsonSchema`,
 * from `@standard-schema/spec` 1.1), which turns it into JSON Schema.
 */
export interface StandardTypedSchema<Input = unknown> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: { readonly input: Input; readonly output: unknown } | undefined;
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** The input type a Standard Schema accepts (for zod, `z.input<typeof schema>`). */
export type StandardInput<Schema extends StandardTypedSchema> = NonNullable<Schema["~standard"]["types"]>["input"];

/** Whether a value declares itself a Standard Schema (an object or function with `~standard`). */
export function isStandardSchema(value: unknown): value is StandardTypedSchema {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props: unknown = (value as { "~standard"?: unknown })["~standard"];
  return typeof props === "object" && props !== null;
}

// The dialect leash validates with by default, so the converted schema needs no translation.
const TARGET = "draft-2020-12";

/**
 * Turns a Standard Schema into the JSON Schema of its input, once, at a tool's construction: that
 * JSON Schema is what validates arguments and what models see. For zod 4 this equals
 * `z.toJSONSchema(schema, { io: "input" })`.
 *
 * @param what names the schema in the error message, e.g. "the parameters of tool `lookup`".
 * @throws LeashError `invalid_tool` when the schema cannot give JSON Schema.
 * @example
 * import { z } from "zod";
 * const schema = standardJsonSchema(z.object({ topic: z.string() }), "the parameters of `lookup`");
 * // { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", ... }
 */
export function standardJsonSchema(schema: StandardTypedSchema, what: string): unknown {
  let props: StandardTypedSchema["~standard"];
  let convert: unknown;
  try {
    props = schema["~standard"];
    convert = (props.jsonSchema as { input?: unknown } | undefined)?.input;
  } catch (error) {
    throw new LeashError("invalid_tool", `Expected ${what} to be readable, but ${messageOf(error)}.`, { cause: error });
  }
  if (typeof convert !== "function") {
    const vendor = typeof props.vendor === "string" ? ` (vendor \`${props.vendor}\`)` : "";
    throw new LeashError(
      "invalid_tool",
      `Expected ${what} to be a JSON Schema or a Standard Schema that converts to JSON Schema, but this Standard ` +
        `Schema${vendor} has no \`~standard.jsonSchema.input\`: it must implement Standard JSON Schema ` +
        "(@standard-schema/spec 1.1), as zod 4 does.",
    );
  }
  try {
    return (convert as (options: { target: string }) => unknown).call(props.jsonSchema, { target: TARGET });
  } catch (error) {
    throw new LeashError(
      "invalid_tool",
      `Expected ${what} to convert to JSON Schema ${TARGET}, but ${messageOf(error)}.`,
      { cause: error },
    );
  }
}
