import assert from "node:assert/strict";
import { Agent, Decision, stateAgreesWithTrail, tool, verifyAudit } from "../../src/index.js";
import type { AuditSink, LimitApprovalRequest, RunStore } from "../../src/index.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, answersOf, postAnswer, serve, signIn } from "./serve-helpers.js";

/** An agent that ticks four times, asking a person to raise max_tool_calls after two. */
function tickAgent(store: RunStore & AuditSink, ran: string[]): Agent {
  return new Agent({
    tools: [tool({ name: "tick", execute: () => ran.push("tick") })],
    planner: (state) => (state.toolCalls >= 4 ? Decision.finish(state.toolCalls) : Decision.act("tick", {})),
    limits: { maxToolCalls: 2, askToRaise: ["max_tool_calls"] },
    store,
    audit: store,
  });
}

eachStore(
  "a limit request's page shows the limit and a raise field; a raise below what was used is refused, a good one is recorded and the run goes on with it",
  async (t, target) => {
    const ran: string[] = [];
    const agent = tickAgent(target.store, ran);
    const paused = await agent.run("tick four times");
    const pending = paused.pending as LimitApprovalRequest;
    assert.equal(pending.kind, "limit");
    const served = await serve(t, target);
    const session = await signIn(served, await addApprover(target, "finance", ["spender"]));
    const page = await (
      await fetch(new URL(`/runs/${paused.runId}`, served.url), { headers: { Cookie: session.cookie } })
    ).text();
    assert.match(page, /reached <strong data-field="limit">max_tool_calls<\/strong>/);
    assert.match(page, /<dd data-field="used">2<\/dd>/);
    assert.match(page, /<input\s[^>]*name="raise_to"[^>]*type="number"/);

    const fields = { _csrf: session.csrf, digest: pending.digest, decision: "approve" };
    for (const raise of ["2", "1.5", "many"]) {
      const refused = await postAnswer(served, session, paused.runId, { ...fields, raise_to: raise });
      assert.equal(refused.status, 400, raise);
    }
    const bare = await postAnswer(served, session, paused.runId, fields);
    assert.equal(bare.status, 400);
    assert.deepEqual(await answersOf(target, paused.runId), []);

    const answered = await postAnswer(served, session, paused.runId, { ...fields, raise_to: "4", note: "ok" });
    assert.equal(answered.status, 303, await answered.text());
    const answers = await answersOf(target, paused.runId);
    assert.deepEqual(
      answers.map((answer) => [answer.approver, answer.granted, answer.raiseTo, answer.origin?.via]),
      [["finance", true, 4, "leash-serve"]],
    );

    const done = await agent.resume(paused.runId);
    assert.equal(done.status, "completed");
    assert.equal(ran.length, 4);
    const trail = await target.store.read(paused.runId);
    assert.deepEqual(verifyAudit(trail), []);
    assert.deepEqual(stateAgreesWithTrail((await target.store.load(paused.runId))!, trail).problems, []);
    assert.deepEqual(
      trail.filter((record) => record.event === "limit_raised").map((record) => record.data),
      [{ limit: "max_tool_calls", from: 2, to: 4, by: "finance" }],
    );
  },
);
