import { trace } from "../trace/trace.js";
import type { LimitApprovalRequest } from "../approvals/approval.js";
import type { RunState } from "../state/run-state.js";
import type { Step } from "../state/saved-run-state.js";
import { approvalCount } from "./approval-count.js";
import type { TrailCheck } from "./check-trail.js";
import { coverageText, problemLines } from "./check-trail.js";
import { originText } from "./answer-run.js";
import { isGatewayRunId } from "./gateway-run-prefix.js";
import type { AnswerOrigin } from "./answer-origin.js";
import { costText } from "./cost-text.js";
import { limitRequestText } from "./limit-request-text.js";
import { interruptedSteps, interruptedText } from "./interrupted-steps.js";
import { fullJsonLines, shortJson } from "./short-json.js";
import { selectorText, waitingRequests } from "./waiting-requests.js";
import type { WaitingRequest } from "./waiting-requests.js";

/** The origin recorded with an answer (`store.answer(..., { origin })`), when there is a well-formed one. */
function originOf(answer: object): AnswerOrigin | undefined {
  const origin = (answer as { origin?: unknown }).origin;
  if (typeof origin !== "object" || origin === null) return undefined;
  const { via, user, host } = origin as Record<string, unknown>;
  return typeof via === "string" && typeof user === "string" && typeof host === "string"
    ? { via, user, host }
    : undefined;
}

/**
 * `approved by "noor"; origin: via cli, os user "mia", host "build-3"; note "fine"`: who answered
 * (quoted, so that no name can pass for the origin), where from, and their note.
 */
export function answeredBy(answer: {
  granted: boolean;
  approver: string;
  note?: string | undefined;
  args?: unknown;
  origin?: unknown;
  raiseTo?: number | undefined;
}): string {
  const origin = originOf(answer);
  const from = origin === undefined ? "origin: none recorded" : originText(origin);
  const note = answer.note === undefined ? "" : `; note ${JSON.stringify(answer.note)}`;
  const edit = answer.args === undefined ? "" : `; with the arguments edited to ${shortJson(answer.args, 200)}`;
  const verdict = answer.raiseTo !== undefined ? `raised to ${answer.raiseTo}` : answer.granted ? "approved" : "denied";
  return `${verdict} by ${JSON.stringify(answer.approver)}; ${from}${note}${edit}`;
}

/**
 * A step as lines of text: what was asked (and why), what came of it, its error and who answered it
 * and from where. `leash show` and the inbox's run page both describe a step with it.
 */
export function stepLines(step: Step, origins: Map<number, unknown>): string[] {
  const { decision } = step;
  const asked =
    decision.type === "act"
      ? `${decision.tool} ${JSON.stringify(decision.args)}`
      : `finish ${shortJson(decision.answer, 90, "see leash show --json")}`;
  const lines = [`  ${String(step.index).padStart(2)}  ${asked}`];
  if (decision.type === "act" && decision.reason !== undefined) lines.push(`      because: ${decision.reason}`);
  if (step.edited !== undefined)
    lines.push(
      `      edited by ${JSON.stringify(step.edited.by)} when approving; ran with ${JSON.stringify(step.edited.args)}`,
    );
  // An interrupted call is not among what ran: its start is known, its outcome is not.
  const outcome =
    step.outcome === "interrupted"
      ? "interrupted: started, outcome unknown (a person should check whether it took effect)"
      : (step.outcome ?? "waiting (for a person, or in flight)");
  lines.push(
    `      -> ${outcome}${step.result === null ? "" : `: ${shortJson(step.result, 80, "see leash show --json")}`}`,
  );
  if (step.error !== undefined) lines.push(`      ${step.error.code}: ${step.error.message}`);
  if (step.approval !== undefined) {
    // The step keeps the answer; where it came from is in the trail's record of it.
    const origin = origins.get(step.index);
    lines.push(`      ${answeredBy(origin === undefined ? step.approval : { ...step.approval, origin })}`);
  }
  return lines;
}

/** The lines of a limit request, with the raises recorded for it and how to answer. */
function limitLines(state: RunState, request: LimitApprovalRequest): string[] {
  const lines = [
    `  the run ${limitRequestText(request)}`,
    `  digest: ${request.digest}`,
    `  asked at: ${request.requestedAt}`,
  ];
  const answers = state.answers.filter((answer) => answer.digest === request.digest);
  for (const answer of answers) lines.push(`  answer recorded: ${answeredBy(answer)}`);
  const pin = ` --digest ${request.digest.slice(0, 16)}`;
  lines.push(
    answers.length === 0
      ? `  answer with: leash approve ${state.runId} --as NAME${pin} --raise-to N (or leash deny ${state.runId} --as NAME${pin})`
      : `  the next resume acts on it: leash resume ${state.runId} --agent PATH (or the app's worker)`,
  );
  return lines;
}

/** The lines of one request waiting for a person, with the answers recorded for it and how to answer. */
function requestLines(state: RunState, waiting: WaitingRequest, several: boolean): string[] {
  const { request, callId } = waiting;
  const call = callId === undefined ? "" : ` (call ${JSON.stringify(callId)})`;
  if (request.kind === "limit") return limitLines(state, request);
  const lines = [
    `  step ${request.step}${call} asks to run ${request.tool} with these arguments, in full:`,
    ...fullJsonLines(request.args, "    "),
    `  effect: ${request.effect}; scopes: ${request.scopes.length === 0 ? "none" : request.scopes.join(", ")}`,
    `  digest: ${request.digest}`,
    `  asked at: ${request.requestedAt}`,
  ];
  if (request.reason !== undefined) lines.push(`  because: ${request.reason}`);
  const answers = state.answers.filter((answer) => answer.digest === request.digest);
  for (const answer of answers) lines.push(`  answer recorded: ${answeredBy(answer)}`);
  const count = approvalCount(state, request);
  if (count !== undefined) lines.push(`  ${count}`);
  // With several waiting, the selector is part of the command: an answer without it is refused.
  const pick = several ? ` ${selectorText(request.step, callId)}` : "";
  const pin = `${pick} --digest ${request.digest.slice(0, 16)}`;
  lines.push(
    answers.length === 0
      ? `  answer with: leash approve ${state.runId} --as NAME${pin} (or leash deny ${state.runId} --as NAME${pin})`
      : state.gate === true
        ? "  the app's loop acts on it when it makes the same call again (same call id)"
        : isGatewayRunId(state.runId)
          ? "  the gateway acts on it when the client makes the same call again"
          : `  the next resume acts on it: leash resume ${state.runId} --agent PATH (or the app's worker)`,
  );
  return lines;
}

function pendingLines(state: RunState): string[] {
  const waiting = waitingRequests(state);
  if (waiting.length === 0) return [];
  const lines =
    state.gate === true
      ? [
          `Waiting for a person: ${waiting.length} ${waiting.length === 1 ? "request" : "requests"}, oldest first, recorded by the app's framework loop (a gate's session; its client, not only its model, can make a call):`,
        ]
      : ["Waiting for a person:"];
  waiting.forEach((item, index) => {
    if (index > 0) lines.push("");
    lines.push(...requestLines(state, item, waiting.length > 1));
  });
  return lines;
}

function trailLines(check: TrailCheck): string[] {
  const lines = [`Audit trail: ${check.records} records`];
  lines.push(check.problems.length === 0 ? "  the chain verifies" : `  ${check.problems.length} problems:`);
  lines.push(...problemLines(check.problems));
  if (check.holdsHead === true) {
    lines.push(
      check.headIsLast === true
        ? "  it holds the state's auditHead, as its last record"
        : "  it holds the state's auditHead; records follow it",
    );
  } else if (check.holdsHead === false) {
    lines.push("  it does NOT hold the state's auditHead: records were removed");
  }
  // The chain alone proves the records; what is printed above is the saved state, checked against them.
  if (check.state.problems.length === 0) lines.push("  the saved state agrees with it");
  else {
    lines.push(`  the saved state disagrees with it (${check.state.problems.length} state_mismatch):`);
    for (const { run, step, field, message } of check.state.problems)
      lines.push(
        `  state_mismatch (run ${run}${step === undefined ? "" : `, step ${step}`}, field ${field}): ${message}`,
      );
  }
  lines.push(
    check.verified
      ? "  verified: the chain holds, and the saved state shown above agrees with it"
      : `  ${coverageText(check)}`,
  );
  return lines;
}

/**
 * The tools that ran, and apart from them the calls whose outcome is unknown: an interrupted call
 * started, and whether it took effect is for a person to check, so it is never listed as having run.
 */
function toolLines(state: RunState, interrupted: readonly Step[]): string[] {
  const ran = [...trace(state).ran];
  // `ran` holds the tool of each started call in step order: the interrupted ones come out of it,
  // from the last, so that the places of the earlier ones still hold.
  const started = state.steps.filter((step) => step.decision.type === "act" && (step.starts ?? 0) > 0);
  for (const step of [...interrupted].reverse()) {
    if (step.decision.type !== "act") continue;
    const place = started.indexOf(step);
    const at = ran[place] === step.decision.tool ? place : ran.lastIndexOf(step.decision.tool);
    if (at >= 0) ran.splice(at, 1);
  }
  const calls = `${state.toolCalls} ${state.toolCalls === 1 ? "call" : "calls"}`;
  const lines = [`Tools that ran: ${ran.length === 0 ? "none" : ran.join(", ")} (${calls})`];
  if (interrupted.length > 0)
    lines.push(
      `Started, outcome unknown: ${interrupted
        .map((step) => `${step.decision.type === "act" ? step.decision.tool : "finish"} (step ${step.index})`)
        .join(", ")}`,
    );
  return lines;
}

/** The trace of a run as lines of text: what `leash show` prints. */
export function describeRun(state: RunState, check: TrailCheck): string[] {
  const lines = [`Run ${state.runId}: ${state.status}`];
  if (state.gate === true)
    lines.push(
      "  a gate's session: driven by the app's framework loop, each tool call one step; it stays running between calls",
    );
  const interrupted = interruptedSteps(state);
  const flag = interruptedText(interrupted.length);
  if (flag !== null) lines.push(`  ${flag}`);
  if (state.stopReason !== undefined) lines.push(`  stopped: ${state.stopReason}`);
  if (state.failure !== undefined) lines.push(`  failed: ${state.failure.code}: ${state.failure.message}`);
  lines.push(`  goal: ${state.goal}`);
  if (state.skill !== undefined)
    lines.push(
      `  skill: ${state.skill} (attempt ${state.attempt}${state.retryOf === undefined ? "" : `, retry of ${state.retryOf}`})`,
    );
  lines.push(`  agent: ${state.agent}${state.principal === undefined ? "" : `, working as ${state.principal}`}`);
  lines.push(`  created ${state.createdAt}, updated ${state.updatedAt}, revision ${state.revision}`);
  if (state.answer !== undefined) lines.push(`  answer: ${shortJson(state.answer, 100, "see leash show --json")}`);
  lines.push("", `Steps (${state.steps.length}):`);
  if (state.steps.length === 0) lines.push("  none");
  for (const step of state.steps) lines.push(...stepLines(step, check.origins));
  const { said } = trace(state);
  lines.push("", "Guards said:");
  lines.push(...(said.length === 0 ? ["  nothing"] : said.map((line) => `  ${line}`)));
  lines.push(...toolLines(state, interrupted));
  lines.push(`Usage: ${state.usage.tokens} tokens, cost ${costText(state.usage.cost)}`);
  const pending = pendingLines(state);
  if (pending.length > 0) lines.push("", ...pending);
  lines.push("", ...trailLines(check));
  return lines;
}
