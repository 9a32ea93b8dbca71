import { AsyncLocalStorage } from "node:async_hooks";
import type { ToolContext } from "../../tools/tool-context.js";

// The framework's call id of the call a gate is running, for the tool that `leashTool` made: the gate
// calls it through leash's own stages, which hand a tool leash's context, not the framework's options.
const current = new AsyncLocalStorage<string>();

/** Runs `work` (a `session.call`) with `callId` as the call id its tool is given. */
export function withCallId<T>(callId: string, work: () => T): T {
  return current.run(callId, work);
}

/**
 * The call id a tool made by `leashTool` gives the AI SDK tool as `toolCallId`: the context's own call
 * id when leash's context carries one, else the session's call id `gateTools` is running, else (a call
 * made some other way) the call's idempotency key, which is as stable: the same on every start of it.
 */
export function callIdOf(context: ToolContext): string {
  const own = (context as { readonly callId?: unknown }).callId;
  if (typeof own === "string" && own !== "") return own;
  return current.getStore() ?? context.idempotencyKey;
}
