import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, MemoryStore, Policy, isLeashError, tool, verifyAudit } from "../../src/index.js";
import type { AuditRecord, Planner, Skill } from "../../src/index.js";

const read = tool({ name: "read", description: "Read the page.", execute: () => "the page" });
const hidden = tool({ name: "hidden", description: "Not for skills.", execute: () => "hidden" });

interface Summary {
  words: number;
}

const summarize: Skill<string, Summary> = {
  name: "Summarize",
  description: "Summarize a page.",
  tools: ["read"],
  output: {
    type: "object",
    properties: { words: { type: "integer" } },
    required: ["words"],
    additionalProperties: false,
  },
  brief: (page) => `Summarize ${page}.`,
  check: (summary) => (summary.words > 100 ? "A summary is short." : null),
};

/** A planner that hands back the given answers in order, one per planner call. */
function answers(...given: unknown[]): Planner {
  return (state) => Decision.finish(given[state.steps.length] ?? null);
}

function trail(agent: Agent, runId: string, event: string): AuditRecord[] {
  return (agent.audit.records as AuditRecord[]).filter((record) => record.run === runId && record.event === event);
}

test("the brief is the goal, the skill's tools the only tools, and the run records the skill's name", async () => {
  let seen: { goal: string; tools: string[]; skill: unknown; principal: unknown } | undefined;
  const agent = new Agent({
    tools: [read, hidden],
    planner: (state, tools, context) => {
      seen ??= {
        goal: state.goal,
        tools: tools.map((item) => item.name),
        skill: context.skill,
        principal: context.principal,
      };
      if (state.steps.length === 0) return Decision.act("hidden");
      return Decision.finish({ words: 12 });
    },
  });
  const outcome = await agent.do(summarize, "the manual", { principal: "mia" });
  assert.equal(outcome.done, true);
  assert.deepEqual(seen, {
    goal: "Summarize the manual.",
    tools: ["read"],
    skill: { name: "Summarize", description: "Summarize a page.", output: summarize.output },
    principal: "mia",
  });
  // A tool outside the skill does not exist for it.
  assert.equal(outcome.state.steps[0]?.outcome, "unknown_tool");
  assert.equal(outcome.state.skill, "Summarize");
  assert.equal(outcome.state.principal, "mia");
  assert.equal((trail(agent, outcome.task, "run_started")[0]?.data as { skill: string }).skill, "Summarize");
});

test("do returns the outcome of the last attempt: done, status, task, attempt, output and state", async () => {
  const agent = new Agent({ tools: [read], planner: answers({ words: 7 }) });
  const outcome = await agent.do(summarize, "p");
  assert.deepEqual(
    {
      done: outcome.done,
      status: outcome.status,
      task: outcome.task,
      attempt: outcome.attempt,
      output: outcome.output,
    },
    { done: true, status: "completed", task: outcome.state.runId, attempt: 1, output: { words: 7 } },
  );
});

test("an output that does not match the schema is refused, shown to the planner, and may be followed by another", async () => {
  const told: unknown[] = [];
  const agent = new Agent({
    tools: [read],
    planner: (state) => {
      told.push(state.observations().at(-1));
      return Decision.finish(state.steps.length === 0 ? { words: "many" } : { words: 3 });
    },
  });
  const outcome = await agent.do(summarize, "p");
  assert.equal(outcome.done, true);
  assert.deepEqual(
    outcome.state.steps.map((step) => step.outcome),
    ["answer_rejected", "finished"],
  );
  const refusal = told[1] as { outcome: string; error: { message: string } };
  assert.equal(refusal.outcome, "answer_rejected");
  assert.match(refusal.error.message, /does not match the skill's schema/);
  assert.equal(trail(agent, outcome.task, "answer_rejected").length, 1);
});

test("the check refuses an output with its reason, shown to the planner", async () => {
  const agent = new Agent({ tools: [read], planner: answers({ words: 500 }, { words: 50 }) });
  const outcome = await agent.do(summarize, "p");
  assert.equal(outcome.done, true);
  assert.deepEqual(outcome.state.steps[0]?.error, { code: "answer_rejected", message: "A summary is short." });
});

test("the third refused output fails the attempt with answer_rejected, each refusal audited", async () => {
  const agent = new Agent({
    tools: [read],
    planner: answers({ words: 500 }, { words: 500 }, { words: 500 }, { words: 5 }),
  });
  const outcome = await agent.do(summarize, "p");
  assert.equal(outcome.status, "failed");
  assert.equal(outcome.state.failure?.code, "answer_rejected");
  assert.equal(outcome.state.steps.length, 3);
  assert.equal(trail(agent, outcome.task, "answer_rejected").length, 3);
  assert.equal(outcome.output, undefined);
});

test("maxRejections given to do bounds the refusals", async () => {
  const agent = new Agent({ tools: [read], planner: answers({ words: 500 }, { words: 5 }) });
  const outcome = await agent.do(summarize, "p", { limits: { maxRejections: 0 } });
  assert.equal(outcome.state.failure?.code, "answer_rejected");
  assert.equal(outcome.state.steps.length, 1);
});

test("a check that throws fails the attempt with done_failed", async () => {
  const skill: Skill<null, unknown> = {
    name: "Fragile",
    brief: () => "go",
    check: () => {
      throw new Error("oops");
    },
  };
  const outcome = await new Agent({ tools: [read], planner: answers(1) }).do(skill, null);
  assert.equal(outcome.state.failure?.code, "done_failed");
  assert.match(outcome.state.failure?.message ?? "", /oops/);
});

test("a failed attempt is tried again from the beginning, as a run of its own with its own budget", async () => {
  const store = new MemoryStore();
  const goals: string[] = [];
  const agent = new Agent({
    tools: [read],
    store,
    limits: { maxSteps: 5 },
    planner: (state) => {
      goals.push(`${state.runId}: ${state.steps.length}`);
      if (state.attempt === 1) return Decision.finish({ words: 500 }, { usage: { tokens: 10, cost: 0.01 } });
      return Decision.finish({ words: 5 });
    },
  });
  const outcome = await agent.do({ ...summarize, retry: { attempts: 3 } }, "p");
  assert.equal(outcome.done, true);
  assert.equal(outcome.attempt, 2);
  const first = await store.load(outcome.state.retryOf ?? "");
  assert.equal(first?.status, "failed");
  assert.equal(first?.attempt, 1);
  assert.deepEqual(first?.usage, { tokens: 30, cost: 0.03 });
  // The second attempt starts afresh: no steps, no spend, no refusals carried over.
  assert.deepEqual(outcome.state.usage, { tokens: 0, cost: 0 });
  assert.deepEqual(
    outcome.state.steps.map((step) => step.outcome),
    ["finished"],
  );
  assert.deepEqual(
    goals.map((goal) => goal.split(": ")[1]),
    ["0", "1", "2", "0"],
  );
  assert.notEqual(outcome.task, first?.runId);
  assert.deepEqual(
    (trail(agent, outcome.task, "run_started")[0]?.data as { attempt: number; retryOf: string }).retryOf,
    first?.runId,
  );
});

test("run_failed is emitted once per failed attempt and gave_up once after the last, before any next attempt starts", async () => {
  const log: string[] = [];
  const agent = new Agent({
    tools: [read],
    planner: (state) => {
      log.push(`plan ${state.attempt}`);
      return Decision.finish(null);
    },
  });
  agent.on("run_failed", ({ attempt, failure }) => log.push(`run_failed ${attempt} ${failure.code}`));
  agent.on("gave_up", ({ attempts, problem }) =>
    log.push(`gave_up ${attempts} ${problem.includes("refused") ? "refused" : problem}`),
  );
  const outcome = await agent.do({ ...summarize, retry: { attempts: 2 } }, "p", { limits: { maxRejections: 0 } });
  assert.equal(outcome.status, "failed");
  assert.deepEqual(log, [
    "plan 1",
    "run_failed 1 answer_rejected",
    "plan 2",
    "run_failed 2 answer_rejected",
    "gave_up 2 refused",
  ]);
  const gaveUp = trail(agent, outcome.task, "gave_up");
  assert.equal(gaveUp.length, 1);
  assert.deepEqual(gaveUp[0]?.data, { task: outcome.task, attempts: 2, problem: outcome.state.failure?.message });
  assert.equal(outcome.state.auditHead?.seq, gaveUp[0]?.seq);
  assert.deepEqual(verifyAudit(agent.audit.records as never), []);
});

test("a handler that throws does not break the run, nor keep other handlers from hearing", async () => {
  const heard: string[] = [];
  const agent = new Agent({ tools: [read], planner: answers(null, null, null, null, null, null) });
  agent.on("run_failed", () => {
    throw new Error("handler bug");
  });
  // An async handler whose promise rejects must not surface as an unhandled rejection either.
  const rejecting = (async () => {
    throw new Error("async handler bug");
  }) as () => void;
  agent.on("gave_up", rejecting);
  agent.on("run_failed", ({ attempt }) => heard.push(`failed ${attempt}`));
  agent.on("gave_up", ({ attempts }) => heard.push(`gave up after ${attempts}`));
  const outcome = await agent.do({ ...summarize, retry: { attempts: 2 } }, "p");
  assert.equal(outcome.status, "failed");
  assert.deepEqual(heard, ["failed 1", "failed 2", "gave up after 2"]);
});

test("work that was stopped is not tried again, and nobody gives up on it", async () => {
  const events: string[] = [];
  const agent = new Agent({ tools: [read], planner: () => Decision.act("read"), limits: { maxSteps: 2 } });
  agent.on("run_failed", () => events.push("run_failed"));
  agent.on("gave_up", () => events.push("gave_up"));
  const outcome = await agent.do({ ...summarize, retry: { attempts: 3 } }, "p");
  assert.equal(outcome.status, "stopped");
  assert.equal(outcome.state.stopReason, "max_steps");
  assert.equal(outcome.attempt, 1);
  assert.deepEqual(events, []);
});

test("work that was cancelled is not tried again", async () => {
  const agent: Agent = new Agent({
    tools: [read],
    planner: (state) => {
      void agent.cancel(state.runId);
      return Decision.act("read");
    },
  });
  const outcome = await agent.do({ ...summarize, retry: { attempts: 3 } }, "p");
  assert.equal(outcome.status, "stopped");
  assert.equal(outcome.state.stopReason, "cancelled");
  assert.equal(outcome.attempt, 1);
  // Cancelled at the planner's very first call: the step never started its tool.
  assert.equal(outcome.state.toolCalls, 0);
  assert.deepEqual(
    outcome.state.steps.map((step) => step.outcome),
    ["stopped"],
  );
});

test("work that paused for a person is returned paused, not tried again", async () => {
  const write = tool({ name: "write", effect: "write", execute: () => "written" });
  const agent = new Agent({
    tools: [read, write],
    policy: new Policy({ allowEffects: ["read", "write"] }),
    planner: () => Decision.act("write"),
  });
  const outcome = await agent.do({ ...summarize, tools: ["write"], retry: { attempts: 3 } }, "p");
  assert.equal(outcome.status, "awaiting_approval");
  assert.equal(outcome.attempt, 1);
  assert.equal(outcome.done, false);
});

test("failed work that waited on a person's approval is not tried again", async () => {
  const written: string[] = [];
  const write = tool({ name: "write", effect: "write", execute: () => (written.push("once"), "written") });
  const agent = new Agent({
    tools: [write],
    policy: new Policy({ allowEffects: ["read", "write"] }),
    approver: (request) => ({ digest: request.digest, granted: true, approver: "allen" }) as never,
    planner: (state) => (state.steps.length === 0 ? Decision.act("write") : Decision.finish(null)),
  });
  const outcome = await agent.do({ ...summarize, tools: ["write"], retry: { attempts: 3 } }, "p");
  assert.equal(outcome.status, "failed");
  assert.equal(outcome.attempt, 1);
  assert.deepEqual(written, ["once"]);
});

test("work a guard blocked at the model is not tried again", async () => {
  const failed: number[] = [];
  const agent = new Agent({
    tools: [read],
    guards: [{ name: "Rules", beforeModel: () => ({ type: "block", why: "No model today." }) }],
    planner: async (state, _tools, context) => {
      await context.callModel(
        { name: "m", generate: () => Promise.reject(new Error("never called")) },
        { system: "", messages: [], tools: [] },
      );
      return Decision.finish(null);
    },
  });
  agent.on("run_failed", ({ attempt }) => failed.push(attempt));
  const outcome = await agent.do({ ...summarize, retry: { attempts: 3 } }, "p");
  assert.equal(outcome.state.failure?.code, "model_blocked");
  assert.equal(outcome.attempt, 1);
  assert.deepEqual(failed, [1]);
});

test("a skill passed to do is found by name when its run is resumed, even by another agent that knows it", async () => {
  const store = new MemoryStore();
  const write = tool({ name: "write", effect: "write", execute: () => "written" });
  const planner: Planner = (state) =>
    state.steps.length === 0 ? Decision.act("write") : Decision.finish({ words: 500 });
  const policy = new Policy({ allowEffects: ["read", "write"] });
  const skill = { ...summarize, tools: ["write"] };
  const first = new Agent({ tools: [write], store, policy, planner });
  const paused = await first.do(skill, "p");
  const digest = paused.state.pending?.digest ?? "";
  // The agent that ran it knows the skill now: its check refuses the output at resume.
  const resumed = await first.resume(paused.task, { approvals: [Approval.grant(digest, "allen")] });
  assert.equal(resumed.steps[1]?.outcome, "answer_rejected");
  // An agent that does not know the skill refuses to resume a run of it.
  const paused2 = await first.do(skill, "q");
  const stranger = new Agent({ tools: [write], store, policy, planner });
  await assert.rejects(
    stranger.resume(paused2.task),
    (error) => isLeashError(error, "invalid_state") && /Summarize/.test(error.message),
  );
  const colleague = new Agent({ tools: [write], store, policy, planner, skills: [skill] });
  const done = await colleague.resume(paused2.task, {
    approvals: [Approval.grant(paused2.state.pending?.digest ?? "", "allen")],
  });
  assert.equal(done.steps[1]?.outcome, "answer_rejected");
});

test("a skill that is not one is refused with invalid_skill", async () => {
  const agent = new Agent({ tools: [read], planner: answers(null) });
  await assert.rejects(agent.do({ name: "", brief: () => "" }, null), (error) => isLeashError(error, "invalid_skill"));
  await assert.rejects(agent.do({ name: "NoBrief" } as never, null), (error) => isLeashError(error, "invalid_skill"));
  await assert.rejects(agent.do({ name: "Bad", brief: () => "", retry: { attempts: 0 } }, null), (error) =>
    isLeashError(error, "invalid_skill"),
  );
  await assert.rejects(agent.do({ name: "Bad", brief: () => "", tools: ["nope"] }, null), (error) =>
    isLeashError(error),
  );
});
