import { LeashError, messageOf } from "../errors/index.js";

/**
 * A schema of any library that implements Standard Schema (`~standard`), as leash sees it: typed
 * structurally, so that leash never imports zod or any other schema library. A zod 4 schema is one.
 * To be a tool's `parameters` it must also implement Standard JSON Schema (`~standard.jsonSchema`,
 * from `@standard-schema/spec` 1.1), which turns it into JSON Schema.
 */
export interface StandardTypedSchema<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** The library's own check: refinements, defaults and transforms JSON Schema cannot say. */
    readonly validate?: (value: unknown) => StandardResult | Promise<StandardResult>;
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** What a Standard Schema's `validate` gives: the parsed value, or the issues. */
type StandardResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | { readonly issues: readonly { readonly message: string; readonly path?: readonly unknown[] }[] };

/** The input type a Standard Schema accepts (for zod, `z.input<typeof schema>`). */
export type StandardInput<Schema extends StandardTypedSchema> = NonNullable<Schema["~standard"]["types"]>["input"];

/** The type a Standard Schema parses to (for zod, `z.output<typeof schema>`): what `execute` gets. */
export type StandardOutput<Schema extends StandardTypedSchema> = NonNullable<Schema["~standard"]["types"]>["output"];

/** A path of a Standard Schema issue as text: `a.b[0]`. */
function pathText(path: readonly unknown[] | undefined): string {
  if (path === undefined || path.length === 0) return "";
  const parts = path.map((segment) => {
    const key = typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment;
    return typeof key === "number" ? `[${key}]` : `.${String(key)}`;
  });
  return `${parts.join("").replace(/^\./, "")}: `;
}

/**
 * Runs a Standard Schema's own check on arguments its JSON Schema accepted: refinements, defaults
 * and transforms that JSON Schema cannot say. Gives the parsed value (what `execute` gets), or the
 * issues as text. A check that throws is an issue too: it decides nothing.
 */
export async function standardParse(
  schema: StandardTypedSchema,
  value: unknown,
): Promise<{ ok: true; value: unknown } | { ok: false; issues: string[] }> {
  try {
    const validate = schema["~standard"].validate;
    if (typeof validate !== "function") return { ok: true, value };
    const result = await validate.call(schema["~standard"], value);
    if (result.issues !== undefined) {
      const issues = Array.from(result.issues, (issue) => `${pathText(issue.path)}${String(issue.message)}`);
      return { ok: false, issues: issues.length === 0 ? ["the schema refused the arguments"] : issues };
    }
    return { ok: true, value: result.value };
  } catch (error) {
    return { ok: false, issues: [`the schema's check threw: ${messageOf(error)}`] };
  }
}

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
