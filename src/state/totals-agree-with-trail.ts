import { MAX_USAGE } from "../decisions/decision.js";
import { saidLine } from "./said-line.js";
import type { GuardPoint } from "./said-line.js";
import type { RunState } from "./run-state.js";
import type { Mismatch, TrailFacts } from "./trail-facts.js";
import { sameJson, shown } from "./trail-facts.js";

/** The guards' lines and the tools that ran, rebuilt from the records in their order. */
export function checkTrace(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
  const said: string[] = [];
  // The tool of each step whose call started, in step order: the order a run starts its calls in,
  // and the order a gate's session keeps (its calls start as people answer them).
  const started = new Map<number, string>();
  for (const { event, data } of facts.all) {
    if (event === "guard_blocked") {
      said.push(
        saidLine(
          data.point as GuardPoint,
          String(data.guard),
          String(data.why),
          typeof data.tool === "string" ? data.tool : undefined,
        ),
      );
    } else if (event === "tool_started" && data.start === 1) {
      started.set(Number(data.step), String(data.tool));
    } else if (event === "tool_ended" && data.outcome === "stopped" && started.has(Number(data.step))) {
      // A call withdrawn before it started is taken out of what ran.
      started.delete(Number(data.step));
    }
  }
  const ran = [...started.entries()].sort(([a], [b]) => a - b).map(([, tool]) => tool);
  if (!sameJson(state.said, said))
    mismatch(
      undefined,
      "said",
      `What the guards said is ${shown(state.said)} in the saved state, but ${shown(said)} in the trail.`,
    );
  const rejections = facts.all.filter((fact) => fact.event === "answer_rejected").length;
  if (state.rejections !== rejections)
    mismatch(
      undefined,
      "rejections",
      `The saved state counts ${shown(state.rejections)} refused answers, but the trail records ${rejections}.`,
    );
  if (!sameJson(state.ran, ran))
    mismatch(
      undefined,
      "ran",
      `The tools that ran are ${shown(state.ran)} in the saved state, but ${shown(ran)} in the trail.`,
    );
}

/**
 * Usage and tool calls: an ended run's against its `run_ended` record, exactly; a run still going
 * against the sums of its records, added in the order the run added them.
 */
export function checkUsage(state: RunState, facts: TrailFacts, mismatch: Mismatch): void {
  const ended = facts.ended?.data;
  const expected = ended !== undefined ? recordedUsage(ended) : summedUsage(facts);
  const where =
    ended !== undefined ? `the run's end in the trail (seq ${facts.ended!.seq})` : "the trail's records add up to";
  const usage = state.usage ?? { tokens: Number.NaN, cost: Number.NaN };
  const close = (left: number, right: number): boolean =>
    ended !== undefined
      ? left === right
      : Math.abs(left - right) <= 1e-9 * Math.max(1, Math.abs(left), Math.abs(right));
  if (usage.tokens !== expected.tokens || !close(usage.cost, expected.cost))
    mismatch(
      undefined,
      "usage",
      `The run's usage is ${shown(state.usage)} in the saved state, but ${where} ${shown({ tokens: expected.tokens, cost: expected.cost })}.`,
    );
  if (state.toolCalls !== expected.toolCalls)
    mismatch(
      undefined,
      "toolCalls",
      `The run made ${shown(state.toolCalls)} tool calls in the saved state, but ${where} ${shown(expected.toolCalls)}.`,
    );
}

interface Totals {
  tokens: number;
  cost: number;
  toolCalls: number;
}

function recordedUsage(data: Record<string, unknown>): Totals {
  const usage = typeof data.usage === "object" && data.usage !== null ? (data.usage as Record<string, unknown>) : {};
  return { tokens: Number(usage.tokens), cost: Number(usage.cost), toolCalls: Number(data.toolCalls) };
}

function summedUsage(facts: TrailFacts): Totals {
  const totals: Totals = { tokens: 0, cost: 0, toolCalls: 0 };
  const add = (tokens: unknown, cost: unknown): void => {
    if (typeof tokens === "number") totals.tokens = Math.min(MAX_USAGE, totals.tokens + tokens);
    if (typeof cost === "number") totals.cost = Math.min(MAX_USAGE, totals.cost + cost);
  };
  const charged = new Map<number, number>();
  for (const { event, data } of facts.all) {
    if (event === "model_called") {
      const usage = data.usage as { tokens?: unknown; cost?: unknown } | null | undefined;
      add(usage?.tokens, usage?.cost);
    } else if (event === "decision_made") {
      const usage = (data.decision as { usage?: { tokens?: unknown; cost?: unknown } } | null | undefined)?.usage;
      if (usage !== undefined) add(usage.tokens, usage.cost);
    } else if (event === "tool_started" && data.start === 1) {
      totals.toolCalls += 1;
      add(0, data.charged);
      charged.set(Number(data.step), typeof data.charged === "number" ? data.charged : 0);
    } else if (event === "tool_ended" && data.outcome === "stopped" && charged.has(Number(data.step))) {
      // A call withdrawn before it started gives its charge back.
      totals.toolCalls -= 1;
      totals.cost -= charged.get(Number(data.step))!;
      charged.delete(Number(data.step));
    }
  }
  return totals;
}
