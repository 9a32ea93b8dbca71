// The inbox flags a run with an interrupted step (a call killed mid-flight and never repeated) on the
// list, on the run's page and in the JSON API, so that a person checks whether it took effect.
import assert from "node:assert/strict";
import { eachStore } from "../cli/cli-stores.js";
import { interruptedRun } from "../cli/interrupted-run.js";
import { addApprover, pausedRun, serve } from "./serve-helpers.js";

const FLAG = "1 interrupted step: a person should check whether it took effect";

eachStore("the inbox's list, run page and JSON API flag a run with an interrupted step", async (t, target) => {
  const interrupted = await interruptedRun(target, "killed-write");
  const waiting = await pausedRun(target);
  const token = await addApprover(target, "noor");
  const served = await serve(t, target);
  const headers = { Authorization: `Bearer ${token}` };
  const get = async (path: string) => {
    const response = await fetch(new URL(path, served.url), { headers });
    assert.equal(response.status, 200, path);
    return response;
  };

  const list = await (await get("/")).text();
  const rowOf = (runId: string) => new RegExp(`<tr data-run-id="${runId}"[\\s\\S]*?</tr>`).exec(list)?.[0] ?? "";
  assert.match(rowOf(interrupted.runId), new RegExp(`data-field="interrupted" data-count="1">${FLAG}<`));
  assert.doesNotMatch(rowOf(waiting.runId), /interrupted/);

  const { runs } = (await (await get("/api/runs")).json()) as { runs: { runId: string; interruptedSteps: number }[] };
  assert.deepEqual(Object.fromEntries(runs.map((run) => [run.runId, run.interruptedSteps])), {
    [interrupted.runId]: 1,
    [waiting.runId]: 0,
  });

  const page = await (await get(`/runs/${interrupted.runId}`)).text();
  assert.match(page, new RegExp(`<dd data-field="status"[^>]*>[\\s\\S]*?${FLAG}`));
  assert.match(page, /interrupted: started, outcome unknown/);

  const one = (await (await get(`/api/runs/${interrupted.runId}`)).json()) as { interruptedSteps: number };
  assert.equal(one.interruptedSteps, 1);
  const other = (await (await get(`/api/runs/${waiting.runId}`)).json()) as { interruptedSteps: number };
  assert.equal(other.interruptedSteps, 0);
});
