import assert from "node:assert/strict";
import { Agent, Decision } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { listGaveUp } from "../../src/inbox/gave-up.js";
import type { GaveUpWork } from "../../src/inbox/gave-up.js";
import { leash } from "./cli-helpers.js";
import { summarize } from "../helpers/summarize-skill.js";
import { eachStore } from "./cli-stores.js";

/** An agent on `store` whose every answer its skill refuses, and whose plain runs fail in the planner. */
function failingAgent(store: RunStore & AuditSink): Agent {
  return new Agent({
    tools: [],
    planner: (state) => {
      if (state.skill === undefined) throw new Error("the planner broke");
      return Decision.finish({ words: 1000 });
    },
    store,
    audit: store,
  });
}

type ListedWork = GaveUpWork;

eachStore(
  "runs --status gave_up lists the work whose every attempt failed, and not a run that failed without giving up",
  async (_t, target) => {
    const agent = failingAgent(target.store);
    const plain = await agent.run("do something");
    assert.equal(plain.status, "failed");
    const outcome = await agent.do(summarize, "the manual", { limits: { maxRejections: 0 } });
    assert.equal(outcome.status, "failed");
    const firstAttempt = outcome.state.retryOf;
    assert.ok(firstAttempt !== undefined);
    assert.equal((await target.store.load(firstAttempt))?.status, "failed", "the first attempt failed too");

    const json = leash(["runs", "--status", "gave_up", ...target.args, "--json"], {
      cwd: target.cwd,
      env: { LEASH_DB: "" },
    });
    assert.equal(json.status, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as { db: string; status: string; runs: ListedWork[] };
    assert.equal(listed.status, "gave_up");
    assert.equal(listed.runs.length, 1, "only the last attempt of the work that gave up");
    const [work] = listed.runs;
    assert.equal(work?.runId, outcome.task);
    assert.equal(work?.skill, "Summarize");
    assert.equal(work?.goal, "Summarize the manual.");
    assert.equal(work?.attempts, 2);
    assert.equal(work?.problem.code, outcome.state.failure?.code);
    assert.equal(work?.problem.message, outcome.state.failure?.message);
    assert.ok(!Number.isNaN(Date.parse(work?.endedAt ?? "")));
    assert.deepEqual(await listGaveUp(target.store), listed.runs);

    const text = leash(["runs", "--status", "gave_up", ...target.args], { cwd: target.cwd, env: { LEASH_DB: "" } });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /Needs attention/);
    const row = text.stdout.split("\n").find((line) => line.startsWith(outcome.task));
    assert.ok(row !== undefined, text.stdout);
    // No sponsor: "-" in the SPONSOR column.
    assert.match(text.stdout, /RUN\s+SKILL \/ GOAL\s+SPONSOR\s+ATTEMPTS/);
    assert.match(row, /Summarize: Summarize the manual\.\s+-\s+2\s+answer_rejected: /);
    assert.equal(listed.runs[0]?.sponsor, null);
    assert.ok(!text.stdout.includes(plain.runId));
    assert.ok(!text.stdout.includes(firstAttempt));
  },
);

eachStore("runs --status gave_up lists the newest first, and says so when there is none", async (_t, target) => {
  // A PostgreSQL store makes its tables on first use.
  await target.store.list();
  const none = leash(["runs", "--status", "gave_up", ...target.args], { cwd: target.cwd, env: { LEASH_DB: "" } });
  assert.equal(none.status, 0, none.stderr);
  assert.match(none.stdout, /No work gave up/);
  const agent = failingAgent(target.store);
  const older = await agent.do({ ...summarize, retry: { attempts: 1 } }, "the first page", {
    limits: { maxRejections: 0 },
  });
  const newer = await agent.do(summarize, "the second page", { limits: { maxRejections: 0 } });
  const json = leash(["runs", "--status", "gave_up", ...target.args, "--json"], {
    cwd: target.cwd,
    env: { LEASH_DB: "" },
  });
  const listed = JSON.parse(json.stdout) as { runs: ListedWork[] };
  assert.deepEqual(
    listed.runs.map((work) => [work.runId, work.attempts]),
    [
      [newer.task, 2],
      [older.task, 1],
    ],
  );
});
