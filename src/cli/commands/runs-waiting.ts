import type { RunStore } from "../../stores/run-store.js";
import type { RunRow } from "../../operate/run-row.js";
import { shortJson } from "../../operate/short-json.js";
import { selectorText, waitingRequests } from "../../operate/waiting-requests.js";

/** One waiting request of a gate's session as `leash runs --json` lists it. */
export interface WaitingRow {
  step: number;
  callId: string | null;
  tool: string;
  args: unknown;
  digest: string;
}

/**
 * The waiting requests of the gate sessions of a page, by run id: such a run stays `running`, and
 * each of its requests is answered on its own, so the listing names every one. Only those runs'
 * states are read (a page holds at most its limit of them); a run gone since its summary was read is
 * left out.
 */
export async function gateRequests(store: RunStore, runs: readonly RunRow[]): Promise<Map<string, WaitingRow[]>> {
  const found = new Map<string, WaitingRow[]>();
  for (const run of runs) {
    if (!run.gate || run.waiting === 0) continue;
    const state = await store.load(run.runId);
    if (state === null) continue;
    found.set(
      run.runId,
      // A gate's session asks about calls only: its limits stop it rather than ask.
      waitingRequests(state).flatMap(({ request, callId }) =>
        request.kind === "call"
          ? [
              {
                step: request.step,
                callId: callId ?? null,
                tool: request.tool,
                args: request.args,
                digest: request.digest,
              },
            ]
          : [],
      ),
    );
  }
  return found;
}

/** The lines under the table that name each waiting request of each gate session listed. */
export function gateRequestLines(requests: ReadonlyMap<string, readonly WaitingRow[]>): string[] {
  const lines: string[] = [];
  for (const [runId, waiting] of requests) {
    lines.push(
      "",
      `Run ${runId}: a gate's session (the app's framework loop makes its calls), ${waiting.length} ${waiting.length === 1 ? "request" : "requests"} waiting for a person:`,
    );
    for (const row of waiting) {
      const call = row.callId === null ? "" : ` call ${JSON.stringify(row.callId)}`;
      const pick = waiting.length > 1 ? `${selectorText(row.step, row.callId ?? undefined)} ` : "";
      lines.push(
        `  step ${row.step}${call}: ${row.tool} ${shortJson(row.args, 60, `see leash show ${runId}`)} digest ${row.digest.slice(0, 16)}`,
        `    answer with: leash approve ${runId} --as NAME ${pick}--digest ${row.digest.slice(0, 16)}`,
      );
    }
  }
  return lines;
}
