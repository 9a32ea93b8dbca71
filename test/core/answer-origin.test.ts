import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, MemoryStore, Policy, isLeashError } from "../../src/index.js";
import type { AnswerOrigin, ApprovalRequest } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { tempFolder } from "../mcp/support.js";
import { saveTool, writerPlanner } from "./helpers.js";
import path from "node:path";

/** A policy that refuses every answer given through `refused`, and remembers the origins it was shown. */
function refusingChannel(refused: string, seen: (AnswerOrigin | undefined)[]): Policy {
  return new Policy({
    allowEffects: ["read", "write"],
    mayApprove: (_approver: string, _request: ApprovalRequest, origin?: AnswerOrigin) => {
      seen.push(origin);
      return origin?.via !== refused;
    },
  });
}

test("mayApprove receives a recorded answer's origin as its third argument, and a refusal of its channel decides nothing", async () => {
  for (const store of [new MemoryStore(), new SqliteStore(path.join(await tempFolder(), "runs.db"))]) {
    const written: string[] = [];
    const seen: (AnswerOrigin | undefined)[] = [];
    const agent = new Agent({
      tools: [saveTool(written)],
      planner: writerPlanner,
      policy: refusingChannel("mcp_elicitation", seen),
      store,
      audit: store,
    });
    const paused = await agent.run("save the report");
    const digest = paused.pending!.digest;
    const fromClient = { via: "mcp_elicitation", client: "desk", host: "h1" };
    await store.answer(paused.runId, Approval.grant(digest, "noor"), { origin: fromClient });
    await assert.rejects(agent.resume(paused.runId), (error) => isLeashError(error, "approver_not_allowed"));
    assert.deepEqual(written, []);
    assert.deepEqual(seen.at(-1), fromClient);
    // The same person through another channel is allowed: the call runs once.
    await store.answer(paused.runId, Approval.grant(digest, "noor"), {
      origin: { via: "cli", user: "noor", host: "h1" },
    });
    const done = await agent.resume(paused.runId);
    assert.equal(done.status, "completed");
    assert.deepEqual(written, ["the report"]);
    // The trail keeps each answer with its origin.
    const answered = (await store.read(paused.runId)).filter((record) => record.event === "approval_answered");
    const vias = answered.map((record) => (record.data as { origin?: AnswerOrigin }).origin?.via);
    assert.deepEqual(vias, ["mcp_elicitation", "cli"]);
    await store.close?.();
  }
});

test("an answer's origin is `{ via, ...more string fields }`: other shapes are invalid_option and record nothing", async () => {
  const store = new MemoryStore();
  const agent = new Agent({
    tools: [saveTool([])],
    planner: writerPlanner,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    store,
  });
  const paused = await agent.run("save the report");
  const digest = paused.pending!.digest;
  const bad: unknown[] = [
    { user: "a", host: "b" },
    { via: "" },
    { via: 3 },
    { via: "cli", user: 7 },
    { via: "cli", nested: { a: "b" } },
    JSON.parse('{"via":"cli","__proto__":"x"}'),
    Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`f${index}`, "x"]).concat([["via", "cli"]])),
    ["via"],
    "cli",
  ];
  for (const origin of bad) {
    await assert.rejects(
      store.answer(paused.runId, Approval.grant(digest, "noor"), { origin: origin as AnswerOrigin }),
      (error) => isLeashError(error, "invalid_option"),
      JSON.stringify(origin),
    );
  }
  assert.deepEqual((await store.load(paused.runId))?.answers, []);
  const saved = await store.answer(paused.runId, Approval.grant(digest, "noor"), {
    origin: { via: "mcp_elicitation", client: "desk" },
  });
  assert.deepEqual(saved.answers[0]?.origin, { via: "mcp_elicitation", client: "desk" });
});
