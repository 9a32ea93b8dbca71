import { readGaveUp, listGaveUp } from "../../inbox/gave-up.js";
import { MAX_LIST_LIMIT } from "../../state/run-summary.js";
import type { StoreLocation } from "../../operate/store-location.js";
import { escapeText } from "../../operate/escape-text.js";
import { withExistingStore } from "../../operate/open-store.js";
import { formatTable, printJson, printLines, shorten } from "../print.js";

/**
 * `leash runs --status gave_up`: the work whose every attempt failed, newest first, with its attempts
 * and the last attempt's problem: the list that needs a person's attention. With `--limit`, one page
 * and the cursor of the next.
 */
export async function printGaveUp(
  location: StoreLocation,
  json: boolean,
  paging: { limit?: number; cursor?: string },
): Promise<void> {
  const { work: runs, next } = await withExistingStore(location, async (store) =>
    paging.limit === undefined && paging.cursor === undefined
      ? { work: await listGaveUp(store), next: undefined }
      : readGaveUp(store, { limit: paging.limit ?? MAX_LIST_LIMIT, ...paging }),
  );
  if (json) return printJson({ db: location.label, status: "gave_up", runs, next: next ?? null });
  if (runs.length === 0) return printLines([`No work gave up in ${location.label}.`]);
  // Escaped before the columns are measured, so that an escape's width keeps the table aligned.
  const rows = runs.map((work) =>
    [
      work.runId,
      work.skill === null ? shorten(work.goal, 40) : `${work.skill}: ${shorten(work.goal, 28)}`,
      work.sponsor ?? "-",
      String(work.attempts),
      `${work.problem.code}: ${shorten(work.problem.message, 60)}`,
      work.endedAt,
    ].map(escapeText),
  );
  printLines([
    "Needs attention: work that gave up after its last attempt failed.",
    "",
    ...formatTable([["RUN", "SKILL / GOAL", "SPONSOR", "ATTEMPTS", "PROBLEM", "GAVE UP"], ...rows]),
    "",
    "Read one with: leash show RUN",
    ...(next === undefined
      ? []
      : [
          escapeText(
            `More: leash runs ${location.args} --status gave_up${paging.limit === undefined ? "" : ` --limit ${paging.limit}`} --cursor ${next}`,
          ),
        ]),
  ]);
}
