import { createRequire } from "node:module";
import type { Ajv, AnySchema, ErrorObject, Options, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type ajvFormats from "ajv-formats";
import { LeashError, messageOf, type ErrorCode } from "../errors/index.js";
import { canonicalOfJson, isJsonObject, toJson, type JsonObject } from "../json/index.js";

/** A JSON Schema as leash keeps it: a JSON object, or `true`/`false` (accept or refuse everything). */
export type JsonSchema = JsonObject | boolean;

/** The JSON Schema dialects leash validates with, chosen by a schema's `$schema`. */
type SchemaDraft = "2020-12" | "draft-07";

/** The outcome of one validation: either valid, or the readable reasons it is not. */
type SchemaValidation = { valid: true } | { valid: false; errors: string[] };

/** A compiled JSON Schema that checks values against it without throwing. */
export interface SchemaValidator {
  /** Checks a value (already JSON) against the schema; the caller decides what a failure means. */
  validate(value: unknown): SchemaValidation;
  /** A checked, private copy of the schema that was compiled. */
  readonly schema: JsonSchema;
  /** The dialect the schema was compiled as. */
  readonly draft: SchemaDraft;
}

/** Options of one compilation. */
interface CompileOptions {
  /** The code of the error thrown when the schema is refused; default `"invalid_tool"`. */
  errorCode?: ErrorCode;
}

/** Compiles JSON Schemas into validators, with its own ajv instances and caches. */
export interface SchemaCompiler {
  /** Compiles a schema; see {@link compileSchema}. */
  compile(schema: unknown, what: string, options?: CompileOptions): SchemaValidator;
}

/**
 * A regular expression engine for the `pattern` keyword and `patternProperties` keys, in the form ajv's
 * `code.regExp` option takes: called with a pattern and its flags when a schema is compiled, it returns
 * what tests a string (and throws when the pattern cannot be used, so the schema does not compile).
 * `code` names it in ajv's generated code.
 */
export interface PatternEngine {
  (source: string, flags: string): { test(text: string): boolean };
  code: string;
}

/** Options of {@link createSchemaCompiler}. */
interface SchemaCompilerOptions {
  /**
   * The engine patterns are matched with; default ECMAScript's `RegExp` (right for the schemas an app
   * writes). `leash/mcp` gives RE2's, which matches in linear time, for schemas a server lists.
   */
  patterns?: PatternEngine;
  /**
   * Schemas that `$ref` may reach by absolute URI, keyed by their retrieval URI. Each is registered
   * with the dialect its `$schema` names, or with both when it names none.
   */
  remotes?: Record<string, unknown>;
  /**
   * Refuse a schema with a keyword or format the dialect does not know (ajv's `strictSchema`),
   * instead of ignoring it: for schemas that bound what is allowed (a standing grant's `args`), where
   * a misspelt `maximun` would silently allow every amount.
   */
  strictSchema?: boolean;
}

const DRAFT_2020_URI = "https://json-schema.org/draft/2020-12/schema";
// The `$id` of ajv's bundled draft-07 meta-schema, the only spelling ajv looks up.
const DRAFT_07_URI = "http://json-schema.org/draft-07/schema#";
const DRAFT_07_PATTERN = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const MAX_CACHED_SCHEMAS = 500;
const MAX_REPORTED_ERRORS = 20;
const MAX_SHOWN_VALUES = 10;
const MAX_SHOWN_VALUE_LENGTH = 60;
const VALID: SchemaValidation = Object.freeze({ valid: true });

// strict: false because tool schemas from MCP servers and models carry keywords ajv does not know.
// ownProperties: true because otherwise `required: ["constructor"]` is met by Object.prototype.
// logger: false because a library must not write to the console (ajv warns there about unknown
// formats). ajv registers each compiled schema under its `$id` (or "" without one) and resolves a
// schema's references to itself through that registration, so it cannot be turned off; schemas with
// an `$id` therefore get an instance of their own (see `build`).
const AJV_OPTIONS: Options = { strict: false, allErrors: true, ownProperties: true, logger: false };

/** ajv's classes and its formats plugin. */
interface AjvModules {
  Ajv: typeof Ajv;
  Ajv2020: typeof Ajv2020;
  addFormats: typeof ajvFormats.default;
}

let ajvModules: AjvModules | undefined;

/**
 * ajv, loaded when the first schema is compiled rather than when leash is imported: its some ninety
 * CommonJS modules cost a process that compiles no schema (most runs of the `leash` bin) about a
 * third of its start-up CPU.
 */
function loadAjv(): AjvModules {
  if (ajvModules === undefined) {
    const load = createRequire(import.meta.url);
    ajvModules = {
      Ajv: (load("ajv") as { Ajv: typeof Ajv }).Ajv,
      Ajv2020: (load("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 }).Ajv2020,
      addFormats: (load("ajv-formats") as typeof ajvFormats).default,
    };
  }
  return ajvModules;
}

/**
 * Creates a compiler with its own ajv instances and caches, optionally with remote schemas that
 * `$ref` may reach by URI (the JSON-Schema-Test-Suite's `http://localhost:1234/` remotes, for one).
 * Tools use {@link compileSchema}, whose compiler has no remotes, so this never slows or pollutes it.
 */
export function createSchemaCompiler(options: SchemaCompilerOptions = {}): SchemaCompiler {
  const remotes = checkRemotes(options.remotes ?? {});
  const patterns = options.patterns;
  const strictSchema = options.strictSchema === true;
  const shared = new Map<SchemaDraft, Ajv>();
  const byObject = new WeakMap<object, SchemaValidator>();
  const byText = new Map<string, SchemaValidator>();

  function instance(draft: SchemaDraft): Ajv {
    let ajv = shared.get(draft);
    if (ajv === undefined) {
      ajv = createAjv(draft, remotes, true);
      shared.set(draft, ajv);
    }
    return ajv;
  }
  // Remotes are registered eagerly, so that a bad one is refused when the compiler is made.
  if (remotes.length > 0) for (const draft of ["2020-12", "draft-07"] as const) instance(draft);

  function compile(schema: unknown, what: string, compileOptions: CompileOptions = {}): SchemaValidator {
    const code = compileOptions.errorCode ?? "invalid_tool";
    const isObject = typeof schema === "object" && schema !== null;
    const known = isObject ? byObject.get(schema) : undefined;
    if (known !== undefined) return known;
    const copy = checkedCopy(schema, what, code);
    const text = canonicalOfJson(copy);
    let validator = byText.get(text);
    if (validator === undefined) {
      validator = build(copy, what, code);
      byText.set(text, validator);
      if (byText.size > MAX_CACHED_SCHEMAS) byText.delete(byText.keys().next().value as string);
    } else {
      // Touched entries move to the end, so the map evicts the least recently used schema.
      byText.delete(text);
      byText.set(text, validator);
    }
    if (isObject) byObject.set(schema, validator);
    return validator;
  }

  function build(schema: JsonSchema, what: string, code: ErrorCode): SchemaValidator {
    const draft = draftOf(schema, what, code);
    const compiled = typeof schema === "boolean" ? schema : withCanonicalDialect(schema, draft);
    const ajv = instance(draft);
    let validate: ValidateFunction;
    try {
      if (hasId(compiled)) {
        // A schema that names resources by `$id` gets an ajv of its own: a shared instance would keep
        // those ids, refuse the next schema that reuses one, and let it answer other schemas' `$ref`.
        // The meta-schema check runs in the shared instance, where the meta-schema is compiled once.
        if (!ajv.validateSchema(compiled)) throw new Error(`schema is invalid: ${ajv.errorsText(ajv.errors)}`);
        validate = createAjv(draft, remotes, false).compile(compiled);
      } else {
        try {
          validate = ajv.compile(compiled);
        } finally {
          // The shared instance would keep every compiled schema (our bounded cache is the one), and
          // the last one registered under "" until the next compilation replaces it.
          if (typeof compiled === "object") ajv.removeSchema(compiled);
          ajv.removeSchema("");
        }
      }
    } catch (error) {
      const message = `Expected ${what} to be a JSON Schema that compiles, but ${messageOf(error)}.`;
      throw new LeashError(code, message, { cause: error });
    }
    // An async schema returns a promise, which is truthy: it would accept every value.
    if ((validate as { $async?: unknown }).$async === true) {
      throw new LeashError(code, `Expected ${what} to be a synchronous JSON Schema, but it sets \`$async\`.`);
    }
    return Object.freeze({ schema, draft, validate: (value: unknown) => resultOf(validate, value) });
  }

  function createAjv(draft: SchemaDraft, list: readonly Remote[], checkMeta: boolean): Ajv {
    // Checking schemas against the meta-schema is left to the shared instances: it compiles the
    // meta-schema, which costs a fresh instance some 20 ms instead of under one.
    const ajvOptions: Options = {
      ...AJV_OPTIONS,
      validateSchema: checkMeta,
      ...(strictSchema ? { strictSchema: true } : {}),
      ...(patterns === undefined ? {} : { code: { regExp: patterns } }),
    };
    const modules = loadAjv();
    const ajv = draft === "2020-12" ? new modules.Ajv2020(ajvOptions) : new modules.Ajv(ajvOptions);
    modules.addFormats(ajv);
    for (const remote of list) {
      if (remote.draft !== undefined && remote.draft !== draft) continue;
      try {
        ajv.addSchema(remote.schema, remote.uri);
      } catch (error) {
        const message = `Expected remote schema ${remote.uri} to compile, but ${messageOf(error)}.`;
        throw new LeashError("invalid_option", message, { cause: error });
      }
    }
    return ajv;
  }

  return { compile };
}

let defaultCompiler: SchemaCompiler | undefined;

/**
 * Compiles a JSON Schema (2020-12, or draft-07 when `$schema` names it) into a validator, once per
 * schema: the same object, or an equal schema, returns the same validator. Schemas are treated as
 * immutable once compiled.
 *
 * @param what names the schema in the error message, e.g. "the parameters of tool `lookup`".
 * @throws LeashError `invalid_tool` (or `options.errorCode`) when the schema is not a JSON object or
 * boolean, is not JSON, names another dialect, or does not compile.
 * @example
 * const validator = compileSchema({ type: "object", required: ["topic"] }, "the parameters of `lookup`");
 * const result = validator.validate({});
 * if (!result.valid) console.log(result.errors); // ["/ must have required property 'topic'"]
 */
export function compileSchema(schema: unknown, what: string, options?: CompileOptions): SchemaValidator {
  defaultCompiler ??= createSchemaCompiler();
  return defaultCompiler.compile(schema, what, options);
}

interface Remote {
  uri: string;
  schema: AnySchema;
  draft: SchemaDraft | undefined;
}

function checkRemotes(remotes: Record<string, unknown>): Remote[] {
  return Object.entries(remotes).map(([uri, schema]) => {
    const what = `remote schema ${uri}`;
    const copy = checkedCopy(schema, what, "invalid_option");
    if (typeof copy === "boolean" || copy.$schema === undefined) return { uri, schema: copy, draft: undefined };
    const draft = draftOf(copy, what, "invalid_option");
    return { uri, schema: withCanonicalDialect(copy, draft), draft };
  });
}

function checkedCopy(schema: unknown, what: string, code: ErrorCode): JsonSchema {
  let copy;
  try {
    copy = toJson(schema, what);
  } catch (error) {
    throw new LeashError(code, messageOf(error), { cause: error });
  }
  if (typeof copy !== "boolean" && !isJsonObject(copy)) {
    throw new LeashError(code, `Expected ${what} to be a JSON Schema (an object or a boolean).`);
  }
  return copy;
}

function draftOf(schema: JsonSchema, what: string, code: ErrorCode): SchemaDraft {
  if (typeof schema === "boolean") return "2020-12";
  const dialect = schema.$schema;
  if (dialect === undefined || dialect === DRAFT_2020_URI || dialect === `${DRAFT_2020_URI}#`) return "2020-12";
  if (typeof dialect === "string" && DRAFT_07_PATTERN.test(dialect)) return "draft-07";
  throw new LeashError(
    code,
    `Expected ${what} to be JSON Schema 2020-12 or draft-07, but its \`$schema\` is ${JSON.stringify(dialect)}.`,
  );
}

// ajv finds a meta-schema only by its exact `$id`, so the compiled copy spells the dialect that way.
function withCanonicalDialect(schema: JsonObject, draft: SchemaDraft): JsonObject {
  if (schema.$schema === undefined) return schema;
  return { ...schema, $schema: draft === "2020-12" ? DRAFT_2020_URI : DRAFT_07_URI };
}

// Over-approximates (a property named `$id` counts too): a false positive only costs an ajv instance.
function hasId(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasId);
  if (!isJsonObject(value)) return false;
  if (typeof value.$id === "string") return true;
  return Object.values(value).some(hasId);
}

function resultOf(validate: ValidateFunction, value: unknown): SchemaValidation {
  let valid: boolean;
  try {
    valid = validate(value);
  } catch (error) {
    // Fail closed: a schema whose `$dynamicRef`s loop, or a value nested deep enough, can overflow the
    // stack inside ajv; a value that could not be checked is not valid.
    return { valid: false, errors: [`/ could not be validated: ${messageOf(error)}`] };
  }
  if (valid) return VALID;
  const messages = [...new Set((validate.errors ?? []).map(describe))];
  if (messages.length === 0) messages.push("/ does not match the schema");
  if (messages.length > MAX_REPORTED_ERRORS) {
    const more = messages.length - MAX_REPORTED_ERRORS;
    messages.splice(MAX_REPORTED_ERRORS, more, `... and ${more} more`);
  }
  return { valid: false, errors: messages };
}

function describe(error: ErrorObject): string {
  const path = error.instancePath === "" ? "/" : error.instancePath;
  const message = error.message ?? `fails \`${error.keyword}\``;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "enum":
      return `${path} ${message} (${showList(params.allowedValues)})`;
    case "const":
      return `${path} ${message} (${show(params.allowedValue)})`;
    case "additionalProperties":
      return `${path} ${message} (${show(params.additionalProperty)})`;
    case "unevaluatedProperties":
      return `${path} ${message} (${show(params.unevaluatedProperty)})`;
    default:
      return `${path} ${message}`;
  }
}

function showList(values: unknown): string {
  if (!Array.isArray(values)) return show(values);
  const shown = values.slice(0, MAX_SHOWN_VALUES).map(show);
  if (values.length > MAX_SHOWN_VALUES) shown.push(`... ${values.length - MAX_SHOWN_VALUES} more`);
  return shown.join(", ");
}

// Strings are shown bare, as a person reads them; long values are cut so one message stays one line.
function show(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return text.length > MAX_SHOWN_VALUE_LENGTH ? `${text.slice(0, MAX_SHOWN_VALUE_LENGTH)}...` : text;
}
