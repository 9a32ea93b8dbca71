import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  Agent,
  allow,
  Approval,
  block,
  Decision,
  isLeashError,
  MemoryStore,
  Policy,
  RunState,
  stateAgreesWithTrail,
  tool,
} from "../../src/index.js";
import type { ApprovalRequest, Approver, AuditSink, Guard, Json, RunStore } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { dropSchema, freshSchemaName, withPostgres } from "../postgres/database.js";
import { tempFolder } from "../cli/cli-helpers.js";
import { callOf } from "../helpers/call-request.js";

const PROPOSED = { amount: 60, memo: "INV-2041" };

/** A payer whose `pay` takes an amount up to 100 and a memo; the planner proposes {@link PROPOSED}. */
function payAgent(
  store: RunStore,
  options: {
    guards?: Guard[];
    approver?: Approver;
    quorum?: (request: ApprovalRequest) => number;
  } = {},
) {
  const paid: Json[] = [];
  const pay = tool({
    name: "pay",
    effect: "write",
    parameters: {
      type: "object",
      properties: { amount: { type: "number", maximum: 100 }, memo: { type: "string" } },
      required: ["amount"],
      additionalProperties: false,
    },
    execute: (args) => {
      paid.push(args);
      return { paid: args.amount };
    },
  });
  const agent = new Agent({
    tools: [pay],
    store,
    policy: new Policy({
      allowEffects: ["read", "write"],
      ...(options.quorum === undefined ? {} : { quorum: options.quorum }),
    }),
    ...(options.guards === undefined ? {} : { guards: options.guards }),
    ...(options.approver === undefined ? {} : { approver: options.approver }),
    planner: (state) => (state.steps.length === 0 ? Decision.act("pay", PROPOSED) : Decision.finish("done")),
  });
  return { agent, paid };
}

async function problemsOf(store: RunStore & AuditSink, runId: string) {
  return stateAgreesWithTrail((await store.load(runId))!, await store.read(runId)).problems;
}

async function editedRunsOnce(store: RunStore & AuditSink): Promise<void> {
  const { agent, paid } = payAgent(store);
  const paused = await agent.run("pay", { runId: "edited" });
  const digest = paused.pending!.digest;
  const edit = { amount: 40, memo: "INV-2041" };
  const done = await agent.resume("edited", { approvals: [Approval.edit(digest, "noor", edit, "capped at 40")] });
  assert.equal(done.status, "completed");
  assert.deepEqual(paid, [edit]);
  const step = done.steps[0]!;
  assert.equal(step.outcome, "executed");
  assert.deepEqual(step.decision.type === "act" ? step.decision.args : null, PROPOSED);
  assert.deepEqual(step.edited, { args: edit, by: "noor" });
  const records = await store.read("edited");
  const events = records.map((record) => record.event);
  const answered = events.indexOf("approval_answered");
  const editedAt = events.indexOf("arguments_edited");
  const started = events.indexOf("tool_started");
  assert.ok(answered >= 0 && answered < editedAt && editedAt < started, events.join(","));
  assert.deepEqual((records[answered]!.data as { args?: Json }).args, edit);
  assert.deepEqual(records[editedAt]!.data, { step: 0, from: PROPOSED, to: edit, by: "noor" });
  assert.deepEqual((records[started]!.data as { args?: Json }).args, edit);
  assert.deepEqual(await problemsOf(store, "edited"), []);
  // The saved form carries the edit back.
  assert.deepEqual(RunState.fromJSON(done.toJSON()).steps[0]?.edited, { args: edit, by: "noor" });
  // A state whose edit was changed by hand disagrees with its trail.
  const json = (await store.load("edited"))!.toJSON();
  json.steps[0]!.edited = { args: { amount: 90, memo: "INV-2041" }, by: "noor" };
  const fields = stateAgreesWithTrail(RunState.fromJSON(json), records).problems.map((problem) => problem.field);
  assert.ok(fields.includes("edited") && fields.includes("arguments"), fields.join(","));
}

test("an edited approval runs the edited arguments once, recorded in order, and verifies clean on a SQLite file", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const store = new SqliteStore(join(folder.path, "runs.db"));
  t.after(() => store.close());
  await editedRunsOnce(store);
});

withPostgres("edit on approve on PostgreSQL", (url) => {
  test("an edited approval runs the edited arguments once and verifies clean on PostgreSQL", async () => {
    const schema = freshSchemaName();
    const store = new PostgresStore({ connectionString: url, schema });
    try {
      await editedRunsOnce(store);
    } finally {
      await store.close();
      await dropSchema(url, schema);
    }
  });
});

test("an edit given to resume that the tool's schema refuses is invalid_arguments, and nothing is recorded", async () => {
  const store = new MemoryStore();
  const { agent, paid } = payAgent(store);
  const paused = await agent.run("pay", { runId: "bad" });
  const before = await store.read("bad");
  const digest = paused.pending!.digest;
  await assert.rejects(
    agent.resume("bad", { approvals: [Approval.edit(digest, "noor", { amount: 500 })] }),
    (error) => isLeashError(error, "invalid_arguments") && /maximum|<= 100/.test((error as Error).message),
  );
  assert.deepEqual(await store.read("bad"), before);
  assert.equal((await store.load("bad"))?.revision, paused.revision);
  assert.deepEqual(paid, []);
});

test("store.answer refuses an edit the tool's schema refuses with invalid_arguments, naming the problem, and records nothing", async () => {
  const store = new MemoryStore();
  const { agent, paid } = payAgent(store);
  const paused = await agent.run("pay", { runId: "stored-bad" });
  const before = await store.load("stored-bad");
  await assert.rejects(
    store.answer("stored-bad", Approval.edit(paused.pending!.digest, "noor", { amount: 500 })),
    (error) => isLeashError(error, "invalid_arguments") && /amount/.test((error as Error).message),
  );
  const after = await store.load("stored-bad");
  assert.equal(after?.revision, before?.revision);
  assert.deepEqual(after?.answers, []);
  assert.equal((await store.read("stored-bad")).filter((record) => record.event === "approval_answered").length, 0);
  // A good edit is recorded, and the resume runs the call with it.
  await store.answer("stored-bad", Approval.edit(paused.pending!.digest, "noor", { amount: 40 }));
  const done = await agent.resume("stored-bad");
  assert.equal(done.steps[0]?.outcome, "executed");
  assert.deepEqual(paid, [{ amount: 40 }]);
  assert.deepEqual(await problemsOf(store, "stored-bad"), []);
});

test("an edit recorded where no schema was at hand that the schema refuses runs nothing: the step is invalid_arguments", async () => {
  const store = new MemoryStore();
  const { agent, paid } = payAgent(store);
  const paused = await agent.run("pay", { runId: "stored-unchecked" });
  // A run paused before steps kept their tool's schema: nothing checks the edit when it is recorded.
  const state = (await store.load("stored-unchecked"))!;
  delete state.steps[0]!.argsSchema;
  const expectedRevision = state.revision;
  state.revision += 1;
  await store.save(state, { expectedRevision });
  await store.answer("stored-unchecked", Approval.edit(paused.pending!.digest, "noor", { amount: 500 }));
  const done = await agent.resume("stored-unchecked");
  assert.deepEqual(paid, []);
  assert.equal(done.steps[0]?.outcome, "invalid_arguments");
  assert.deepEqual(await problemsOf(store, "stored-unchecked"), []);
});

test("an edited call a guard's beforeTool blocks does not run", async () => {
  const store = new MemoryStore();
  const capped: Guard = {
    name: "cap",
    beforeTool: (_work, _tool, args) => ((args as { amount: number }).amount > 50 ? block("over 50") : allow()),
  };
  // The run pauses under an agent without the guard; the guarded agent resumes it, so the guard
  // judges the edited call alone: 80 is blocked, 45 runs.
  const { agent, paid } = payAgent(store, { guards: [] });
  const paused = await agent.run("pay", { runId: "guarded" });
  const guarded = payAgent(store, { guards: [capped] });
  const blocked = await guarded.agent.resume("guarded", {
    approvals: [Approval.edit(paused.pending!.digest, "noor", { amount: 80 })],
  });
  assert.equal(blocked.steps[0]?.outcome, "blocked");
  assert.deepEqual([...paid, ...guarded.paid], []);
  assert.deepEqual(await problemsOf(store, "guarded"), []);
  const second = await agent.run("pay", { runId: "guarded-ok" });
  const ok = await guarded.agent.resume("guarded-ok", {
    approvals: [Approval.edit(second.pending!.digest, "noor", { amount: 45 })],
  });
  assert.equal(ok.steps[0]?.outcome, "executed");
  assert.deepEqual(guarded.paid, [{ amount: 45 }]);
});

test("an edit equal to the proposed arguments is no edit", async () => {
  const store = new MemoryStore();
  const { agent, paid } = payAgent(store);
  const paused = await agent.run("pay", { runId: "same" });
  const done = await agent.resume("same", {
    approvals: [Approval.edit(paused.pending!.digest, "noor", { memo: "INV-2041", amount: 60 })],
  });
  assert.deepEqual(paid, [PROPOSED]);
  assert.equal(done.steps[0]?.edited, undefined);
  assert.ok(!(await store.read("same")).some((record) => record.event === "arguments_edited"));
  assert.deepEqual(await problemsOf(store, "same"), []);
});

test("an approver callable may answer with an edit, and the edited call passes every gate again", async () => {
  const store = new MemoryStore();
  const { agent, paid } = payAgent(store, {
    approver: (request) => Approval.edit(request.digest, "bot", { amount: 10 }),
  });
  const done = await agent.run("pay", { runId: "callable" });
  assert.equal(done.status, "completed");
  assert.deepEqual(paid, [{ amount: 10 }]);
  assert.deepEqual(done.steps[0]?.edited, { args: { amount: 10 }, by: "bot" });
  assert.deepEqual(await problemsOf(store, "callable"), []);
  const refused = payAgent(store, { approver: (request) => Approval.edit(request.digest, "bot", { amount: 1000 }) });
  const ended = await refused.agent.run("pay", { runId: "callable-bad" });
  assert.equal(ended.steps[0]?.outcome, "invalid_arguments");
  assert.deepEqual(refused.paid, []);
  assert.deepEqual(await problemsOf(store, "callable-bad"), []);
});

test("under a quorum, grants count together only when they carry the same edit", async () => {
  const store = new MemoryStore();
  const { agent, paid } = payAgent(store, { quorum: () => 2 });
  const paused = await agent.run("pay", { runId: "groups" });
  const digest = paused.pending!.digest;
  await store.answer("groups", Approval.edit(digest, "noor", { amount: 40 }));
  await store.answer("groups", Approval.grant(digest, "sam"));
  const short = await agent.resume("groups");
  assert.equal(short.status, "awaiting_approval");
  assert.deepEqual(callOf(short)?.grantedBy, ["noor", "sam"]);
  assert.deepEqual(paid, []);
  assert.deepEqual(await problemsOf(store, "groups"), []);
  const done = await agent.resume("groups", { approvals: [Approval.edit(digest, "ali", { amount: 40 })] });
  assert.equal(done.status, "completed");
  assert.deepEqual(paid, [{ amount: 40 }]);
  assert.deepEqual(done.steps[0]?.edited, { args: { amount: 40 }, by: "ali" });
  assert.deepEqual(await problemsOf(store, "groups"), []);
});

test("an edit on a denial, or an edit that is not a JSON object, is invalid_option", () => {
  const digest = "a".repeat(64);
  assert.throws(
    () => new Approval(digest, { granted: false, approver: "noor", args: { amount: 1 } }),
    (error) => isLeashError(error, "invalid_option"),
  );
  assert.throws(
    () => Approval.edit(digest, "noor", [1, 2]),
    (error) => isLeashError(error, "invalid_option"),
  );
  const edit = Approval.edit(digest, "noor", { amount: 1 }, "less");
  assert.deepEqual(Approval.fromJSON(edit.toJSON()).toJSON(), {
    digest,
    granted: true,
    approver: "noor",
    note: "less",
    args: { amount: 1 },
  });
});

test("an edit kept on a step by a claim runs edited after a crash before the call", async () => {
  const store = new MemoryStore();
  const { agent, paid } = payAgent(store);
  const paused = await agent.run("pay", { runId: "crashed" });
  const json = paused.toJSON();
  const digest = json.pending!.digest;
  // The state a claim saves before the call: running, the edited grant kept on the step.
  json.status = "running";
  delete json.pending;
  delete json.pendingHistory;
  json.steps[0]!.approval = { digest, granted: true, approver: "noor", args: { amount: 20 } };
  // Resumed from the copy, by an agent with no store, as a caller that holds every copy itself.
  const ran: Json[] = [];
  const pay = tool({
    name: "pay",
    effect: "write",
    parameters: { type: "object", properties: { amount: { type: "number" } } },
    execute: (args) => ran.push(args),
  });
  const alone = new Agent({
    tools: [pay],
    policy: new Policy({ allowEffects: ["read", "write"] }),
    planner: (state) => (state.steps.length === 0 ? Decision.act("pay", PROPOSED) : Decision.finish("done")),
  });
  const resumed = await alone.resume(RunState.fromJSON(json));
  assert.equal(resumed.steps[0]?.outcome, "executed");
  assert.deepEqual(resumed.steps[0]?.edited, { args: { amount: 20 }, by: "noor" });
  assert.deepEqual(ran, [{ amount: 20 }]);
  assert.deepEqual(paid, []);
});

test("store.answer checks an edit against a tool schema with keywords JSON Schema does not know, and refuses one it cannot check, recording nothing", async () => {
  const store = new MemoryStore();
  const ran: Json[] = [];
  const agentOf = (name: string, parameters: Record<string, Json>) =>
    new Agent({
      tools: [
        tool({
          name,
          effect: "write",
          parameters: parameters,
          execute: (args) => {
            ran.push(args);
            return "done";
          },
        }),
      ],
      store,
      policy: new Policy({ allowEffects: ["read", "write"] }),
      planner: (state) => (state.steps.length === 0 ? Decision.act(name, { amount: 5 }) : Decision.finish("done")),
    });
  // A schema with an annotation of the app's own and an unknown format: checked as the tool checks it.
  const annotated = {
    type: "object",
    "x-ui": { widget: "slider" },
    properties: { amount: { type: "number", maximum: 10 }, day: { type: "string", format: "fiscal-day" } },
    required: ["amount"],
  };
  const first = await agentOf("pay", annotated).run("pay", { runId: "annotated" });
  await assert.rejects(
    store.answer("annotated", Approval.edit(first.pending!.digest, "noor", { amount: 50 })),
    (error) => isLeashError(error, "invalid_arguments") && /maximum|<= 10/.test((error as Error).message),
  );
  await store.answer("annotated", Approval.edit(first.pending!.digest, "noor", { amount: 7, day: "Q3-12" }));
  assert.equal((await store.load("annotated"))?.answers.length, 1);

  // A pattern RE2 cannot match (a lookahead), and a schema too long to keep: no edit is recorded.
  const lookahead = {
    type: "object",
    properties: { amount: { type: "number" }, memo: { type: "string", pattern: "^(?=INV)" } },
  };
  const huge = {
    type: "object",
    properties: { amount: { type: "number" } },
    description: "x".repeat(70_000),
  };
  for (const [runId, parameters] of [
    ["lookahead", lookahead],
    ["huge", huge],
  ] as const) {
    const paused = await agentOf(`pay_${runId}`, parameters).run("pay", { runId });
    await assert.rejects(
      store.answer(runId, Approval.edit(paused.pending!.digest, "noor", { amount: 6 })),
      (error) => isLeashError(error, "invalid_arguments") && /cannot be checked here/.test((error as Error).message),
      runId,
    );
    assert.deepEqual((await store.load(runId))?.answers, [], runId);
    // Approving without an edit is recorded as ever.
    await store.answer(runId, Approval.grant(paused.pending!.digest, "noor"));
    assert.equal((await store.load(runId))?.answers.length, 1, runId);
  }
  assert.deepEqual(ran, []);
});
