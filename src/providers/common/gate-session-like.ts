// A gate's session as the adapters (`leash/ai-sdk`, `leash/openai-agents`) see it, written out structurally: the providers' floor never
// imports the gate (src/gate/ sits above it), so any object with these members drives the tools,
// whichever copy of leash made it.
import { LeashError } from "../../errors/index.js";
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
  | {
      readonly status: "executed";
      readonly result: unknown;
      /** Present when a person edited the call's arguments when approving it. */
      readonly edited?: { readonly args: unknown; readonly by: string };
    }
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

/** A gate's tools: a list of them (leash `Tool`s or their descriptions) or a `Toolset`. */
export type GateToolsLike = Iterable<GateToolLike> | { describe(): GateToolLike[] };

/**
 * A session of a leash `Gate` (API.md section 18): what `gateTools` and `chargeUsage` call. A session
 * that lists its gate's tools (`tools`) gives `gateTools` its tools; otherwise the app passes them.
 */
export interface GateSessionLike {
  readonly tools?: GateToolsLike | undefined;
  /** The session's run as last seen: `gateEnded` reads its status. */
  readonly state?: { readonly status: string } | undefined;
  call(callId: string, tool: string, args: Json, options?: { reason?: string }): Promise<GateCallAnswerLike>;
  needsApproval(callId: string, tool: string, args: Json): Promise<boolean>;
  charge(usage: GateChargeLike): unknown;
}

/** The tools of `given` (a list, or a `Toolset` by its `describe()`), or undefined when it is neither. */
function listOf(given: unknown): GateToolLike[] | undefined {
  if (typeof given !== "object" || given === null) return undefined;
  if (typeof (given as { describe?: unknown }).describe === "function")
    return (given as { describe(): GateToolLike[] }).describe();
  if (typeof (given as Iterable<unknown>)[Symbol.iterator] !== "function") return undefined;
  return [...(given as Iterable<GateToolLike>)];
}

/**
 * The gate's tools an adapter offers its framework: `given` when the app passes them, else the
 * session's own (`session.tools`), each a leash tool or its description.
 *
 * @throws LeashError `invalid_option` when neither lists them, or an entry is not a tool
 */
export function gateToolsOf(session: GateSessionLike, given?: GateToolsLike): GateToolLike[] {
  const tools = listOf(given) ?? listOf(session.tools);
  if (tools === undefined) {
    throw new LeashError(
      "invalid_option",
      "gateTools: this session does not list its gate's tools; pass a gate's session, or pass them: `gateTools(session, { tools })`.",
    );
  }
  for (const tool of tools) {
    if (typeof tool !== "object" || tool === null || typeof tool.name !== "string") {
      throw new LeashError(
        "invalid_option",
        "gateTools: expected the gate's tools to be leash tools (or their descriptions).",
      );
    }
  }
  return tools;
}
