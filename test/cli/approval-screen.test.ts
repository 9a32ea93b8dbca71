// What a person sees before answering: the whole request, whatever its length or key order, and
// names that cannot pass for the origin the command line records.
import assert from "node:assert/strict";
import { Agent, Approval, Decision, Policy, tool } from "../../src/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import { leash } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";

const MEMO = "Monthly invoice for services rendered; see ticket 4411, thanks!";

/** An agent that asks to pay with the amount as the last key, after a long memo. */
function longRequestAgent(store: RunStore & AuditSink): Agent {
  const pay = tool({ name: "pay", parameters: { type: "object" }, effect: "write", execute: () => "paid" });
  return new Agent({
    tools: [pay],
    planner: (state) =>
      state.steps.length === 0 ? Decision.act("pay", { to: "bob", memo: MEMO, amount: 10000 }) : Decision.finish("ok"),
    policy: new Policy({ allowEffects: ["write"] }),
    store,
    audit: store,
  });
}

eachStore("show and approve print the pending request's arguments in full, however long", async (t, target) => {
  const paused = await longRequestAgent(target.store).run("pay bob his usual 10");
  const show = leash(["show", paused.runId, ...target.args], { cwd: target.cwd });
  assert.equal(show.status, 0, show.stderr);
  const waiting = show.stdout.slice(show.stdout.indexOf("Waiting for a person:"));
  assert.match(waiting, /"amount": 10000/, show.stdout);
  assert.ok(waiting.includes(MEMO), show.stdout);
  const steps = show.stdout.slice(show.stdout.indexOf("Steps"), show.stdout.indexOf("Guards said"));
  assert.ok(steps.includes('"amount":10000') || steps.includes("more characters"), show.stdout);

  const approve = leash(["approve", paused.runId, "--as", "noor", ...target.args], { cwd: target.cwd });
  assert.equal(approve.status, 0, approve.stderr);
  assert.match(approve.stdout, /"amount": 10000/, approve.stdout);
  assert.ok(approve.stdout.includes(MEMO), approve.stdout);
});

eachStore("deny's confirmation prints the request's arguments in full", async (t, target) => {
  const paused = await longRequestAgent(target.store).run("pay bob his usual 10");
  const deny = leash(["deny", paused.runId, "--as", "noor", ...target.args], { cwd: target.cwd });
  assert.equal(deny.status, 0, deny.stderr);
  assert.match(deny.stdout, /"amount": 10000/, deny.stdout);
});

eachStore(
  "an approver's name is printed quoted, apart from the labelled origin, so it cannot imitate one",
  async (t, target) => {
    const paused = await longRequestAgent(target.store).run("pay bob");
    const spoof = "alice (via cli: alice@payroll-host)";
    await target.store.answer(paused.runId, Approval.grant(paused.pending!.digest, spoof));
    const show = leash(["show", paused.runId, ...target.args], { cwd: target.cwd });
    assert.equal(show.status, 0, show.stderr);
    assert.ok(!show.stdout.includes(`by ${spoof}`), show.stdout);
    assert.ok(show.stdout.includes(`by ${JSON.stringify(spoof)}`), show.stdout);
    assert.match(show.stdout, /origin: none recorded/, show.stdout);

    const approve = leash(["approve", paused.runId, "--as", spoof, ...target.args], { cwd: target.cwd });
    assert.equal(approve.status, 0, approve.stderr);
    assert.ok(approve.stdout.includes(`as ${JSON.stringify(spoof)}`), approve.stdout);
    assert.match(approve.stdout, /origin: via cli, os user "[^"]+", host "[^"]+"/, approve.stdout);
    const after = leash(["show", paused.runId, ...target.args], { cwd: target.cwd });
    assert.match(
      after.stdout,
      /approved by "alice \(via cli: alice@payroll-host\)"; origin: via cli, os user "/,
      after.stdout,
    );
  },
);

eachStore(
  "after the resume, show gives a step's approval with the origin the trail recorded for it",
  async (t, target) => {
    const agent = longRequestAgent(target.store);
    const paused = await agent.run("pay bob");
    const approve = leash(["approve", paused.runId, "--as", "noor", ...target.args], { cwd: target.cwd });
    assert.equal(approve.status, 0, approve.stderr);
    const resumed = await agent.resume(paused.runId);
    assert.equal(resumed.steps[0]?.approval?.approver, "noor");
    const show = leash(["show", paused.runId, ...target.args], { cwd: target.cwd });
    assert.equal(show.status, 0, show.stderr);
    assert.match(show.stdout, /approved by "noor"; origin: via cli, os user "[^"]+", host "[^"]+"/, show.stdout);
    assert.doesNotMatch(show.stdout, /origin: none recorded/, show.stdout);
  },
);
