// A gate's session as the AI SDK adapter sees it, written out structurally: the providers' floor never
// imports the gate (src/gate/ sits above it), so any object with these members drives the tools,
// whichever copy of leash made it.
import type { Json } from "../../json/index.js";
import type { JsonSchema } from "../../tools/schema-validator.js";

/** What one tool of a gate looks like to the adapter: a leash `Tool` or its description fits. */
export interface GateToolLike {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

/** The answer of `session.call`, as far as the adapter reads it (API.md section 18). */
export type GateCallAnswerLike =
  | { readonly status: "executed"; readonly result: unknown }
  | { readonly status: "refused"; readonly outcome: string; readonly message: string }
  | { readonly status: "awaiting_approval"; readonly request: { readonly digest: string; readonly tool: string } }
  | { readonly status: "stopped"; readonly reason: string }
  | { readonly status: "failed"; readonly failure: { readonly code: string; readonly message: string } };

/** A model call the framework made, charged to the session. */
export interface GateChargeLike {
  tokens: number;
  cost: number;
  model?: string;
}

/**
 * A session of a leash `Gate` (API.md section 18): what `gateTools` and `chargeUsage` call. The tools
 * are the gate's, as a list or as a `Toolset` (whose `describe()` lists them).
 */
export interface GateSessionLike {
  readonly tools: Iterable<GateToolLike> | { describe(): GateToolLike[] };
  call(callId: string, tool: string, args: Json, options?: { reason?: string }): Promise<GateCallAnswerLike>;
  needsApproval(callId: string, tool: string, args: Json): Promise<boolean>;
  charge(usage: GateChargeLike): unknown;
}
