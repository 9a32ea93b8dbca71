// Sponsors in the inbox (API.md section 19): the list of work that gave up, on a real `leash serve`,
// puts the signed-in person's sponsored work first, then the rest, each newest first, and shows the
// sponsor of each; pages of any size keep that order with no repeats or gaps.
import assert from "node:assert/strict";
import { Agent, Decision } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { readGaveUp } from "../../src/inbox/gave-up.js";
import { summarize } from "../helpers/summarize-skill.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, serve } from "./serve-helpers.js";
import { leash } from "../cli/cli-helpers.js";

/** Work of a skill that gives up after two attempts, for `sponsor` (or nobody); returns its last run id. */
async function giveUp(store: RunStore & AuditSink, sponsor: string | undefined): Promise<string> {
  const agent = new Agent({
    tools: [],
    planner: () => Decision.finish({ words: 1000 }),
    store,
    audit: store,
    ...(sponsor === undefined ? {} : { sponsor }),
  });
  const outcome = await agent.do(summarize, "the manual", { limits: { maxRejections: 0 } });
  assert.equal(outcome.status, "failed");
  return outcome.task;
}

function rowsOf(page: string): string[] {
  return [...page.matchAll(/<tr data-run-id="([^"]+)">/g)].map((match) => match[1] as string);
}

eachStore(
  "the gave-up list puts the signed-in person's sponsored work first, with each row's sponsor",
  async (t, target) => {
    const bea1 = await giveUp(target.store, "bea");
    const noor1 = await giveUp(target.store, "noor");
    const nobody = await giveUp(target.store, undefined);
    const noor2 = await giveUp(target.store, "noor");
    const noorToken = await addApprover(target, "noor");
    const beaToken = await addApprover(target, "bea");
    const served = await serve(t, target);
    const page = async (token: string, path: string) =>
      (await fetch(new URL(path, served.url), { headers: { Authorization: `Bearer ${token}` } })).text();

    const forNoor = await page(noorToken, "/gave-up");
    assert.deepEqual(rowsOf(forNoor), [noor2, noor1, nobody, bea1]);
    assert.match(forNoor, new RegExp(`<tr data-run-id="${noor2}">[\\s\\S]*?data-field="sponsor"[^>]*>noor<`));
    assert.match(forNoor, new RegExp(`<tr data-run-id="${bea1}">[\\s\\S]*?data-field="sponsor"[^>]*>bea<`));
    assert.deepEqual(rowsOf(await page(beaToken, "/gave-up")), [bea1, noor2, nobody, noor1]);
    const api = JSON.parse(await page(noorToken, "/api/runs?status=gave_up")) as { runs: { runId: string }[] };
    assert.deepEqual(
      api.runs.map((run) => run.runId),
      [noor2, noor1, nobody, bea1],
    );

    // A page at a time, of every size: the same order, nothing twice, nothing missed.
    for (const limit of [1, 2, 3]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const listed = await readGaveUp(target.store, {
          limit,
          sponsor: "noor",
          ...(cursor === undefined ? {} : { cursor }),
        });
        assert.ok(listed.work.length <= limit);
        seen.push(...listed.work.map((work) => work.runId));
        cursor = listed.next;
      } while (cursor !== undefined);
      assert.deepEqual(seen, [noor2, noor1, nobody, bea1], `pages of ${limit}`);
    }
  },
);

eachStore(
  "every listing's row names the run's sponsor, or null: leash runs --json and GET /api/runs",
  async (t, target) => {
    const finish = async (sponsor: string | undefined): Promise<string> => {
      const agent = new Agent({
        tools: [],
        planner: () => Decision.finish("done"),
        store: target.store,
        audit: target.store,
        ...(sponsor === undefined ? {} : { sponsor }),
      });
      return (await agent.run("say done")).runId;
    };
    const sponsored = await finish("noor");
    const unsponsored = await finish(undefined);
    const expected = new Map([
      [sponsored, "noor"],
      [unsponsored, null],
    ]);

    const listed = leash(["runs", "--json", ...target.args], { cwd: target.cwd });
    assert.equal(listed.status, 0, listed.stderr);
    const rows = (JSON.parse(listed.stdout) as { runs: { runId: string; sponsor: string | null }[] }).runs;
    assert.deepEqual(new Map(rows.map((row) => [row.runId, row.sponsor])), expected);

    const token = await addApprover(target, "noor");
    const served = await serve(t, target);
    const response = await fetch(new URL("/api/runs", served.url), { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(response.status, 200);
    const api = (await response.json()) as { runs: { runId: string; sponsor: string | null }[] };
    assert.deepEqual(new Map(api.runs.map((row) => [row.runId, row.sponsor])), expected);
  },
);
