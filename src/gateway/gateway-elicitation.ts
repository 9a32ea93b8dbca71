import { hostname } from "node:os";
import { escapeJsonText, escapeText } from "../operate/escape-text.js";
import { Approval } from "../approvals/approval.js";
import type { CallApprovalRequest } from "../approvals/approval.js";
import type { Json } from "../json/json-value.js";
import type { RunState } from "../state/run-state.js";
import type { RunStore } from "../stores/run-store.js";
import { ELICITATION_VIA } from "./gateway-approvers.js";
import type { CallContext } from "./gateway-shared.js";

/**
 * The longest question the gateway asks at the client, in characters. A request whose question
 * (every value escaped, the arguments whole) would be longer is not asked there: a person cannot be
 * expected to read it in a client's dialog, and a question cut short would hide part of the action.
 * The call's answer then says to approve it in the inbox or with `leash approve`.
 */
export const MAX_ELICITATION_CHARS = 8_000;

/** A value with its object keys in canonical (code point) order, at every depth. */
function sorted(value: Json): Json {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== "object" || value === null) return value;
  // fromEntries defines each key as an own field, `__proto__` too.
  return Object.fromEntries(
    Object.keys(value)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((key) => [key, sorted(value[key] as Json)]),
  );
}

/**
 * JSON text a person can read safely: keys in canonical order, pretty-printed, and every character a
 * screen may act on or hide written as a `\uXXXX` escape (newlines and controls inside strings are
 * escaped by JSON itself), so no value can start a line of its own.
 */
export function escapedJson(value: Json, indent = 2): string {
  return escapeJsonText(JSON.stringify(sorted(value), null, indent) ?? "null");
}

/** A text from the run (a reason, a note) as one quoted line: JSON-quoted, with every unsafe character escaped. */
function quoted(text: string): string {
  return escapeJsonText(JSON.stringify(text));
}

/**
 * The question asked at the client for a request: the whole action, each value escaped (tool name,
 * server, effect, scopes, reason, run and digest on lines of their own, the arguments whole, in
 * canonical key order), or `undefined` when it would be longer than {@link MAX_ELICITATION_CHARS}.
 * Nothing a model or an upstream wrote can draw a line the question did not: every newline, control,
 * bidirectional or invisible character in a value is shown as an escape.
 */
export function elicitationQuestion(request: CallApprovalRequest, runId: string, server?: string): string | undefined {
  const lines = [
    "leash asks: may this call run once?",
    `Tool: ${escapeText(request.tool)}`,
    ...(server === undefined ? [] : [`Server: ${escapeText(server)}`]),
    `Effect: ${escapeText(request.effect)}`,
    `Scopes: ${request.scopes.length === 0 ? "(none)" : request.scopes.map((scope) => quoted(scope)).join(", ")}`,
    ...(request.reason === undefined ? [] : [`Reason given (quoted): ${quoted(request.reason)}`]),
    "Arguments, in full:",
    escapedJson(request.args),
    `Run: ${escapeText(runId)}`,
    `Request digest: ${escapeText(request.digest)}`,
  ];
  const question = lines.join("\n");
  return question.length > MAX_ELICITATION_CHARS ? undefined : question;
}

/** Who asks at the client: the approver the answers are recorded as, the client's name, and the question's server. */
export interface Asker {
  /** The approver's name answers given at the client are recorded as (`approval.elicitAs`). */
  as: string;
  /** The client the person is at (`stdio`, or the name its bearer token belongs to). */
  client: string;
  server?: string;
}

/**
 * Asks the person at the client, if the client can be asked and the question is not too long;
 * records the answer with its origin `{ via: "mcp_elicitation", client, host }`. Returns whether the
 * question was asked, `"too_long"` when it was not for its length.
 */
export function askAtClient(
  store: RunStore,
  asker: Asker,
  state: RunState,
  context: CallContext,
  signal: AbortSignal,
): "asked" | "not_asked" | "too_long" {
  const pending = state.pending;
  // A limit's raise is a spend decision, answered with `leash approve --raise-to`, not at the client.
  if (context.ask === undefined || pending?.kind !== "call") return "not_asked";
  const question = elicitationQuestion(pending, state.runId, asker.server);
  if (question === undefined) return "too_long";
  void context
    .ask(question, signal)
    .then(async (answer) => {
      if (answer === undefined || signal.aborted) return;
      const approval = new Approval(pending.digest, {
        granted: answer.granted,
        approver: asker.as,
        ...(answer.note === undefined ? {} : { note: answer.note }),
      });
      await store.answer(state.runId, approval, {
        origin: { via: ELICITATION_VIA, client: asker.client, host: hostname() },
      });
    })
    // An answer that came too late (the run moved on) or a client that could not be asked: the wait goes on.
    .catch(() => undefined);
  return "asked";
}
