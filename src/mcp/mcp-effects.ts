import type { Effect } from "../tools/tool.js";
import type { McpToolOverride } from "./mcp-options.js";

/** An effect and whether repeating the call is harmless. */
interface DerivedEffect {
  effect: Effect;
  idempotent: boolean;
}

/**
 * The effect of an MCP tool from its annotations. An untrusted server's tools are all `external`
 * and not idempotent. A trusted server's hints are read with the spec's defaults filled in
 * (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false, `openWorldHint` true); a
 * hint that is not a boolean counts as absent, and read-only together with destructive is read as
 * not read-only (the riskier reading).
 */
export function annotatedEffect(annotations: unknown, trusted: boolean): DerivedEffect {
  if (!trusted) return { effect: "external", idempotent: false };
  const hints = typeof annotations === "object" && annotations !== null ? (annotations as Record<string, unknown>) : {};
  const readOnly = hints.readOnlyHint === true && hints.destructiveHint !== true;
  const closedWorld = hints.openWorldHint === false;
  if (readOnly && closedWorld) return { effect: "read", idempotent: true };
  if (!readOnly && closedWorld) return { effect: "write", idempotent: hints.idempotentHint === true };
  return { effect: "external", idempotent: false };
}

/**
 * The effect after the app's override: an overridden effect or idempotence wins. Without an explicit
 * `idempotent`, a `read` is idempotent, an `external` never is, and a `write` keeps what the trusted
 * annotations said.
 */
export function toolEffect(
  annotations: unknown,
  trusted: boolean,
  override: McpToolOverride | undefined,
): DerivedEffect {
  const derived = annotatedEffect(annotations, trusted);
  const effect = override?.effect ?? derived.effect;
  let idempotent: boolean;
  if (override?.idempotent !== undefined) idempotent = override.idempotent;
  else if (effect === "read") idempotent = true;
  else if (effect === "write") idempotent = derived.effect === "write" && derived.idempotent;
  else idempotent = false;
  return { effect, idempotent };
}
