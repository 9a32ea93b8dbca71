import type { StopReason } from "../../limits/limits.js";
import { RUN_STATUSES } from "../../state/outcomes.js";
import type { RunStatus } from "../../state/outcomes.js";
import type { RunSummary } from "../run-summary.js";

type Fields = Record<string, unknown>;

const text = (fields: Fields, key: string): string => {
  const value = fields[key];
  if (typeof value !== "string") throw new TypeError(key);
  return value;
};

const optionalText = (fields: Fields, key: string): string | undefined =>
  fields[key] === undefined ? undefined : text(fields, key);

const count = (fields: Fields, key: string): number => {
  const value = fields[key];
  if (typeof value !== "number" || !Number.isFinite(value)) throw new TypeError(key);
  return value;
};

const optionalCount = (fields: Fields, key: string): number | undefined =>
  fields[key] === undefined ? undefined : count(fields, key);

/**
 * The waiting-request fields of a stored summary. A summary written before gate sessions existed has
 * neither: such a run is no gate's, and waits on its one pending request when it has one.
 */
function waitingFields(fields: Fields): { gate: boolean; waiting: number } {
  const gate = fields.gate === undefined ? false : fields.gate;
  if (typeof gate !== "boolean") throw new TypeError("gate");
  if (fields.waiting !== undefined) return { gate, waiting: count(fields, "waiting") };
  return { gate, waiting: fields.status === "awaiting_approval" && fields.pendingDigest !== undefined ? 1 : 0 };
}

/**
 * A `summary` column read back as the {@link RunSummary} that `summaryOf(state, change)` gives:
 * every field checked and set, those a run does not have as `undefined` (JSON leaves them out), and
 * `change` from its own column. `null` when the text is not such a summary (a row changed by hand),
 * so that the caller computes the summary from the run's state instead of trusting it.
 */
export function storedSummary(summary: string, change: number): RunSummary | null {
  try {
    const parsed: unknown = JSON.parse(summary);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
    const fields = parsed as Fields;
    const status = text(fields, "status") as RunStatus;
    if (!RUN_STATUSES.includes(status)) return null;
    if (typeof fields.goalShortened !== "boolean") return null;
    return {
      runId: text(fields, "runId"),
      agent: text(fields, "agent"),
      status,
      goal: text(fields, "goal"),
      goalShortened: fields.goalShortened,
      skill: optionalText(fields, "skill"),
      principal: optionalText(fields, "principal"),
      sponsor: optionalText(fields, "sponsor"),
      attempt: count(fields, "attempt"),
      retryOf: optionalText(fields, "retryOf"),
      steps: count(fields, "steps"),
      toolCalls: count(fields, "toolCalls"),
      interruptedSteps: count(fields, "interruptedSteps"),
      pendingTool: optionalText(fields, "pendingTool"),
      pendingDigest: optionalText(fields, "pendingDigest"),
      pendingQuorum: optionalCount(fields, "pendingQuorum"),
      pendingGranted: optionalCount(fields, "pendingGranted"),
      ...waitingFields(fields),
      answers: count(fields, "answers"),
      stopReason: optionalText(fields, "stopReason") as StopReason | undefined,
      failureCode: optionalText(fields, "failureCode"),
      cost: count(fields, "cost"),
      createdAt: text(fields, "createdAt"),
      updatedAt: text(fields, "updatedAt"),
      revision: count(fields, "revision"),
      change,
    };
  } catch {
    return null;
  }
}
