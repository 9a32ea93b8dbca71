import { LeashError, checkOptionKeys } from "../errors/index.js";
import type { Json } from "../json/index.js";
import { toJson } from "../json/index.js";
import type { JsonSchema, SchemaValidator } from "./schema-validator.js";
import { compileSchema } from "./schema-validator.js";
import type { StandardOutput, StandardTypedSchema } from "./standard-schema.js";
import { isStandardSchema, standardJsonSchema, standardParse } from "./standard-schema.js";
import type { ToolContext } from "./tool-context.js";

const TOOL_SPEC_KEYS = [
  "name",
  "description",
  "parameters",
  "scopes",
  "effect",
  "cost",
  "idempotent",
  "timeoutMs",
  "execute",
  "definition",
] as const;

/** What a tool does to the world: only `read` tools are allowed by default. */
export type Effect = "read" | "write" | "external";

/** Every effect, in the order they are usually listed. */
export const EFFECTS: readonly Effect[] = ["read", "write", "external"];

/**
 * What a tool's `parameters` may be: a JSON Schema, or a schema of a library that implements
 * Standard JSON Schema (zod 4), converted once to JSON Schema when the tool is built.
 */
export type ToolParameters = JsonSchema | StandardTypedSchema;

/**
 * The declaration of a tool, as given to {@link tool}. `Parameters` narrows what `parameters` may be:
 * {@link tool} types `execute`'s arguments from a typed schema, and keeps JSON Schema's untyped.
 */
export interface ToolSpec<Args = Record<string, Json>, Parameters extends ToolParameters = ToolParameters> {
  /** Matches `/^[A-Za-z0-9_-]{1,64}$/`, the rule model tool-calling interfaces share. */
  name: string;
  description?: string;
  /**
   * The keyword arguments: JSON Schema (2020-12, or draft-07 by `$schema`), or a zod 4 schema (any
   * Standard Schema that converts to JSON Schema), converted once to the JSON Schema of its input.
   */
  parameters?: Parameters;
  scopes?: string[];
  effect?: Effect;
  /** Charged against `limits.maxCost` when the call starts. */
  cost?: number;
  /** Whether a repeat of the call does no harm; default: `effect === "read"`. */
  idempotent?: boolean;
  /** Bounds one call; the call's `ctx.signal` is aborted when it runs out. */
  timeoutMs?: number;
  execute(args: Args, context: ToolContext): unknown;
  /**
   * Where the tool comes from, when it comes from elsewhere (an MCP server): its definition as listed
   * there. Part of the tool's description and of the approval digest; set by `leash/mcp`.
   */
  definition?: ToolDefinition;
}

/** A tool's definition as an MCP server listed it (API.md section 1). */
export interface ToolDefinition {
  server: string;
  name: string;
  description: string;
  inputSchema: Json;
  annotations: Json;
}

/** A tool as a model's tool-calling interface sees it: plain JSON. */
export interface ToolDescription {
  name: string;
  description: string;
  parameters: JsonSchema;
  effect: Effect;
  scopes: string[];
  cost: number;
  idempotent: boolean;
  /** Present only for a tool that comes from elsewhere (an MCP server). */
  definition?: ToolDefinition;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let redefine: (target: Tool<any>, spec: ToolSpec<any>) => void;
let revision = 0;

/**
 * Redefines a tool in place from a new spec of the same name (its description, parameters, effect,
 * definition...), so every holder of the tool sees the change; for leash's own adapters, not the app.
 * @internal
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function redefineTool(target: Tool<any>, spec: ToolSpec<any>): void {
  redefine(target, spec);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let typedCheck: (target: Tool<any>) => boolean;

/**
 * Whether a tool has a typed schema whose own check {@link Tool.typedProblems} runs; without one it
 * finds no problem, and the gates need not wait for its promise. @internal
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function hasTypedCheck(target: Tool<any>): boolean {
  return typedCheck(target);
}

/** A count of redefinitions so far: a holder of cached descriptions compares it. @internal */
export function toolRevision(): number {
  return revision;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const NO_ARGUMENTS: JsonSchema = { type: "object", properties: {}, additionalProperties: false };

function invalid(name: unknown, message: string): never {
  const label = typeof name === "string" ? `tool \`${name}\`` : "a tool";
  throw new LeashError("invalid_tool", `Invalid ${label}: ${message}`);
}

/**
 * A checked tool: its spec validated and its argument schema compiled once, at construction.
 * Build one with {@link tool}.
 */
export class Tool<Args = Record<string, Json>> {
  readonly name: string;
  readonly description: string;
  /** The JSON Schema that validates arguments (converted from a typed schema when one was given). */
  readonly parameters: JsonSchema;
  readonly scopes: readonly string[];
  readonly effect: Effect;
  readonly cost: number;
  readonly idempotent: boolean;
  readonly timeoutMs: number | undefined;
  readonly validator: SchemaValidator;
  readonly execute: (args: Args, context: ToolContext) => unknown;
  /** The tool's definition where it comes from (an MCP server), if it comes from elsewhere. */
  readonly definition: ToolDefinition | undefined;
  #description: ToolDescription;
  #typed: StandardTypedSchema | undefined;

  static {
    typedCheck = (target) => target.#typed !== undefined;
    // Redefinition in place is for leash's own adapters (leash/mcp) only: not exported from `leash`.
    redefine = (target, spec) => {
      const fresh = new Tool(spec);
      if (fresh.name !== target.name) invalid(target.name, "A tool redefined in place keeps its name.");
      const { description, parameters, scopes, effect, cost, idempotent, timeoutMs, validator, execute } = fresh;
      const parts = { description, parameters, scopes, effect, cost, idempotent, timeoutMs, validator, execute };
      Object.assign(target, parts, { definition: fresh.definition });
      target.#description = fresh.#description;
      target.#typed = fresh.#typed;
      revision += 1;
    };
  }

  constructor(spec: ToolSpec<Args>) {
    if (typeof spec !== "object" || spec === null) invalid(undefined, "expected a spec object.");
    const { name } = spec;
    if (typeof name !== "string" || !NAME.test(name)) {
      invalid(name, "Expected `name` to match /^[A-Za-z0-9_-]{1,64}$/ (letters, digits, _ and -, no spaces).");
    }
    // A misspelt key would leave its default: `scope` for `scopes` makes a tool need no scope at all.
    checkOptionKeys(spec, TOOL_SPEC_KEYS, `the spec of tool \`${name}\``, { code: "invalid_tool", noun: "key" });
    if (typeof spec.execute !== "function") invalid(name, "Expected `execute` to be a function.");
    const description = spec.description ?? "";
    if (typeof description !== "string") invalid(name, "Expected `description` to be a string.");
    const scopes = spec.scopes ?? [];
    if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === "string" && scope !== "")) {
      invalid(name, "Expected `scopes` to be an array of non-empty strings.");
    }
    const effect = spec.effect ?? "read";
    if (!EFFECTS.includes(effect)) invalid(name, 'Expected `effect` to be "read", "write" or "external".');
    const cost = spec.cost ?? 0;
    if (typeof cost !== "number" || !Number.isFinite(cost) || cost < 0 || cost > Number.MAX_SAFE_INTEGER) {
      invalid(name, "Expected `cost` to be a finite number from 0 to Number.MAX_SAFE_INTEGER.");
    }
    const idempotent = spec.idempotent ?? effect === "read";
    if (typeof idempotent !== "boolean") invalid(name, "Expected `idempotent` to be a boolean.");
    if (spec.timeoutMs !== undefined && !(Number.isInteger(spec.timeoutMs) && spec.timeoutMs > 0)) {
      invalid(name, "Expected `timeoutMs` to be a positive integer.");
    }
    let parameters: JsonSchema;
    const given = spec.parameters ?? NO_ARGUMENTS;
    // Converted here, once: validation, digests and models all see this one JSON Schema.
    const schema = isStandardSchema(given) ? standardJsonSchema(given, `the parameters of tool \`${name}\``) : given;
    try {
      parameters = toJson(schema, "`parameters`") as JsonSchema;
    } catch (error) {
      invalid(name, (error as Error).message);
    }
    if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
      invalid(name, "Expected `parameters` to be a JSON Schema object.");
    }
    // compileSchema throws invalid_tool itself, naming the tool.
    this.validator = compileSchema(parameters, `the parameters of tool \`${name}\``);
    this.name = name;
    this.description = description;
    this.parameters = parameters;
    this.scopes = Object.freeze([...new Set(scopes)].sort());
    this.effect = effect;
    this.cost = cost;
    this.idempotent = idempotent;
    this.timeoutMs = spec.timeoutMs;
    // Called through the spec, so an execute written as a method keeps its `this`. A typed schema's
    // own check ran at the gates; it runs again here for the value it parses to (defaults filled in,
    // transforms applied), which is what `execute` gets.
    const typed = isStandardSchema(given) ? given : undefined;
    this.#typed = typed;
    this.execute =
      typed === undefined
        ? (args, context) => spec.execute(args, context)
        : async (args, context) => {
            const parsed = await standardParse(typed, args);
            if (!parsed.ok) {
              throw new TypeError(`Invalid arguments for \`${name}\`: ${parsed.issues.join("; ")}.`);
            }
            return spec.execute(parsed.value as Args, context);
          };
    let definition: ToolDefinition | undefined;
    if (spec.definition !== undefined) {
      try {
        definition = toJson(spec.definition, "`definition`") as unknown as ToolDefinition;
      } catch (error) {
        invalid(name, (error as Error).message);
      }
    }
    this.definition = definition;
    this.#description = {
      name,
      description,
      parameters,
      effect,
      scopes: [...this.scopes],
      cost,
      idempotent,
    };
    if (definition !== undefined) this.#description.definition = definition;
  }

  /**
   * The problems a typed schema's own check finds in arguments its JSON Schema accepted
   * (refinements; zod's `.refine`), or none: asked at the gates, so a refused call never runs.
   */
  async typedProblems(args: Json): Promise<string[]> {
    if (this.#typed === undefined) return [];
    const parsed = await standardParse(this.#typed, structuredClone(args));
    return parsed.ok ? [] : parsed.issues;
  }

  /** The tool as plain JSON, for a planner or a model (a fresh copy each call). */
  describe(): ToolDescription {
    return structuredClone(this.#description);
  }
}

/**
 * Declares a tool: a function with a schema of its keyword arguments (JSON Schema, or a zod 4
 * schema whose parsed type becomes the type of `execute`'s arguments: its refinements are checked
 * at the gates, and `execute` gets the parsed value, defaults filled in), its effect, scopes and cost.
 * A bad spec throws `LeashError` `invalid_tool` here, before any run.
 *
 * @example
 * const lookup = tool({
 *   name: "lookup",
 *   parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
 *   scopes: ["docs:read"],
 *   execute: ({ topic }) => PAGES[String(topic)] ?? "",
 * });
 * const typed = tool({
 *   name: "typed_lookup",
 *   parameters: z.object({ topic: z.string() }),
 *   execute: ({ topic }) => PAGES[topic] ?? "", // topic: string
 * });
 */
export function tool<Schema extends StandardTypedSchema>(
  spec: ToolSpec<StandardOutput<Schema>, Schema> & { parameters: Schema },
): Tool<StandardOutput<Schema>>;
export function tool<Args = Record<string, Json>>(spec: ToolSpec<Args, JsonSchema>): Tool<Args>;
export function tool<Args>(spec: ToolSpec<Args>): Tool<Args> {
  return new Tool(spec);
}
