import { LeashError, checkOptionKeys } from "../../errors/index.js";
import type { Effect } from "../../tools/tool.js";

/** What leash needs to know of a framework's tool that the framework does not say: its effect and bounds. */
export interface ToolDeclaration {
  /** The tool's name in leash and for the model; usually the framework tool's own name. */
  name: string;
  effect: Effect;
  scopes?: string[];
  /** Charged against `limits.maxCost` when the call starts. */
  cost?: number;
  /** Whether a repeat of the call does no harm; default: `effect === "read"`. */
  idempotent?: boolean;
}

const DECLARATION_KEYS = ["name", "effect", "scopes", "cost", "idempotent"] as const;

/**
 * Checks the declaration `leashTool(frameworkTool, declaration)` of every adapter is given: an object
 * of known keys with an `effect` (the rest `tool()` checks), and how its messages name the tool.
 *
 * @throws LeashError `invalid_option`
 */
export function checkDeclaration(options: unknown): ToolDeclaration & { label: string } {
  if (typeof options !== "object" || options === null) {
    throw new LeashError(
      "invalid_option",
      "leashTool: expected options `{ name, effect, scopes?, cost?, idempotent? }`.",
    );
  }
  checkOptionKeys(options, DECLARATION_KEYS, "leashTool options");
  const declaration = options as ToolDeclaration;
  if (declaration.effect === undefined) {
    throw new LeashError("invalid_option", 'leashTool: expected `effect`: "read", "write" or "external".');
  }
  const label = typeof declaration.name === "string" ? `tool \`${declaration.name}\`` : "the tool";
  return { ...declaration, label };
}
