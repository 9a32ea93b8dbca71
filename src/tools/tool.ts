import { LeashError } from "../errors/index.js";
import type { Json } from "../json/index.js";
import { toJson } from "../json/index.js";
import type { JsonSchema, SchemaValidator } from "./schema-validator.js";
import { compileSchema } from "./schema-validator.js";
import type { ToolContext } from "./tool-context.js";

/** What a tool does to the world: only `read` tools are allowed by default. */
export type Effect = "read" | "write" | "external";

/** Every effect, in the order they are usually listed. */
export const EFFECTS: readonly Effect[] = ["read", "write", "external"];

/** The declaration of a tool, as given to {@link tool}. */
export interface ToolSpec<Args = Record<string, Json>> {
  /** Matches `/^[A-Za-z0-9_-]{1,64}$/`, the rule model tool-calling interfaces share. */
  name: string;
  description?: string;
  /** JSON Schema (2020-12, or draft-07 by `$schema`) of the keyword arguments. */
  parameters?: JsonSchema;
  scopes?: string[];
  effect?: Effect;
  /** Charged against `limits.maxCost` when the call starts. */
  cost?: number;
  /** Whether a repeat of the call does no harm; default: `effect === "read"`. */
  idempotent?: boolean;
  /** Bounds one call; the call's `ctx.signal` is aborted when it runs out. */
  timeoutMs?: number;
  execute(args: Args, context: ToolContext): unknown;
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
  readonly parameters: JsonSchema;
  readonly scopes: readonly string[];
  readonly effect: Effect;
  readonly cost: number;
  readonly idempotent: boolean;
  readonly timeoutMs: number | undefined;
  readonly validator: SchemaValidator;
  readonly execute: (args: Args, context: ToolContext) => unknown;
  readonly #description: ToolDescription;

  constructor(spec: ToolSpec<Args>) {
    if (typeof spec !== "object" || spec === null) invalid(undefined, "expected a spec object.");
    const { name } = spec;
    if (typeof name !== "string" || !NAME.test(name)) {
      invalid(name, "Expected `name` to match /^[A-Za-z0-9_-]{1,64}$/ (letters, digits, _ and -, no spaces).");
    }
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
    try {
      parameters = toJson(spec.parameters ?? NO_ARGUMENTS, "`parameters`") as JsonSchema;
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
    // Called through the spec, so an execute written as a method keeps its `this`.
    this.execute = (args, context) => spec.execute(args, context);
    this.#description = {
      name,
      description,
      parameters,
      effect,
      scopes: [...this.scopes],
      cost,
      idempotent,
    };
  }

  /** The tool as plain JSON, for a planner or a model (a fresh copy each call). */
  describe(): ToolDescription {
    return structuredClone(this.#description);
  }
}

/**
 * Declares a tool: a function with a JSON Schema of its keyword arguments, its effect, scopes and
 * cost. A bad spec throws `LeashError` `invalid_tool` here, before any run.
 *
 * @example
 * const lookup = tool({
 *   name: "lookup",
 *   parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
 *   scopes: ["docs:read"],
 *   execute: ({ topic }) => PAGES[topic] ?? "",
 * });
 */
export function tool<Args = Record<string, Json>>(spec: ToolSpec<Args>): Tool<Args> {
  return new Tool(spec);
}
