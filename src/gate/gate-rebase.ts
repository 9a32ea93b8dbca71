import { isLeashError } from "../errors/index.js";
import { ActiveRun } from "../run/active-run.js";
import type { AgentCore } from "../run/agent-core.js";
import type { Outcome } from "../state/outcomes.js";
import type { Step } from "../state/run-state.js";
import { saidLine } from "../state/said-line.js";

/** The outcomes a call's end gives once its tool ran: what a lost save of a result may carry. */
const ENDED_BY_TOOL: ReadonlySet<Outcome> = new Set<Outcome>(["executed", "tool_error", "timed_out", "withheld"]);

/** How many times a result is written again on a run other calls keep moving. */
const MAX_REBASES = 50;

/** The call of `ours` whose tool ran and whose end the store has not taken: started as often, still open there. */
function endedHere(ours: readonly Step[], stored: readonly Step[]): Step | undefined {
  return ours.find((step) => {
    if (step.outcome === null || !ENDED_BY_TOOL.has(step.outcome)) return false;
    const there = stored[step.index];
    return there !== undefined && there.outcome === null && (there.starts ?? 0) === (step.starts ?? 0);
  });
}

/**
 * Keeps the end of a call whose tool ran when the save of its result was lost to another process
 * of the same session (another call saved in between): the tool cannot be run again, so its end is
 * written onto the run as stored now (the step's outcome, result and error, its `tool_ended` and
 * afterTool records chained on the stored head, a guard's line), by compare-and-set, again as often
 * as other saves get in first. Nothing is written when the stored run shows the call settled or
 * started again elsewhere (a recovery took it over): what it says stands.
 */
export async function keepCallEnd(core: AgentCore, lost: ActiveRun): Promise<void> {
  const records = lost.unwrittenRecords();
  const { runId } = lost.state;
  for (let attempt = 1; attempt <= MAX_REBASES; attempt += 1) {
    const stored = await core.store!.load(runId);
    if (stored === null || stored.status !== "running") return;
    const ended = endedHere(lost.state.steps, stored.steps);
    if (ended === undefined) return;
    const step = stored.steps[ended.index]!;
    step.outcome = ended.outcome;
    step.result = ended.result;
    if (ended.error === undefined) delete step.error;
    else step.error = { ...ended.error };
    stored.elapsedMs = Math.max(stored.elapsedMs, lost.state.elapsedMs);
    const run = new ActiveRun(core, stored, { head: stored.auditHead, stored: true, skill: undefined });
    for (const record of records) {
      const data = record.data as { step?: unknown; point?: unknown; guard?: unknown; why?: unknown; tool?: unknown };
      if (data.step !== step.index) continue;
      if (record.event === "guard_blocked" && data.point === "afterTool")
        stored.said.push(saidLine("afterTool", String(data.guard), String(data.why), String(data.tool)));
      run.record(record.event, record.data);
    }
    try {
      await run.checkpoint();
      return;
    } catch (error) {
      if (!isLeashError(error, "stale_state")) throw error;
    }
  }
}
