import { listGaveUp } from "../../inbox/gave-up.js";
import type { StoreLocation } from "../../operate/store-location.js";
import { escapeText } from "../../operate/escape-text.js";
import { withExistingStore } from "../../operate/open-store.js";
import { formatTable, printJson, printLines, shorten } from "../print.js";

/**
 * `leash runs --status gave_up`: the work whose every attempt failed, newest first, with its attempts
 * and the last attempt's problem: the list that needs a person's attention.
 */
export async function printGaveUp(location: StoreLocation, json: boolean): Promise<void> {
  const runs = await withExistingStore(location, (store) => listGaveUp(store));
  if (json) return printJson({ db: location.label, status: "gave_up", runs });
  if (runs.length === 0) return printLines([`No work gave up in ${location.label}.`]);
  // Escaped before the columns are measured, so that an escape's width keeps the table aligned.
  const rows = runs.map((work) =>
    [
      work.runId,
      work.skill === null ? shorten(work.goal, 40) : `${work.skill}: ${shorten(work.goal, 28)}`,
      String(work.attempts),
      `${work.problem.code}: ${shorten(work.problem.message, 60)}`,
      work.endedAt,
    ].map(escapeText),
  );
  printLines([
    "Needs attention: work that gave up after its last attempt failed.",
    "",
    ...formatTable([["RUN", "SKILL / GOAL", "ATTEMPTS", "PROBLEM", "GAVE UP"], ...rows]),
    "",
    "Read one with: leash show RUN",
  ]);
}
