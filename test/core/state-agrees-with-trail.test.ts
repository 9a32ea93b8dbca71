import { test } from "node:test";
import assert from "node:assert/strict";
import {
  MemoryStore,
  RunState,
  keygen,
  signCheckpoint,
  stateAgreesWithTrail,
  verifyCheckpoint,
} from "../../src/index.js";
import type { AuditRecord, CallApprovalRequest, RunStateJson, StateMismatch } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { tempFolder } from "../cli/cli-helpers.js";
import { RUN_KINDS, fillRunKinds } from "../helpers/run-kinds.js";

async function filledMemoryStore(): Promise<MemoryStore> {
  const store = new MemoryStore();
  await fillRunKinds(store);
  return store;
}

/** The problems of a run's state changed by `change`, against its untouched records. */
async function afterEdit(
  store: MemoryStore,
  runId: string,
  change: (json: RunStateJson) => void,
): Promise<StateMismatch[]> {
  const json = (await store.load(runId))!.toJSON();
  change(json);
  return stateAgreesWithTrail(RunState.fromJSON(json), await store.read(runId)).problems;
}

function placesOf(problems: readonly StateMismatch[]): { step?: number; field: string }[] {
  return problems.map(({ step, field }) => (step === undefined ? { field } : { step, field }));
}

test("an untouched store of every kind of run gives no state_mismatch, in memory and in a SQLite file", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const file = new SqliteStore(`${folder.path}/runs.db`);
  t.after(() => file.close());
  for (const store of [await filledMemoryStore(), file]) {
    if (store === file) await fillRunKinds(file);
    const states = await store.list();
    assert.deepEqual(states.map((state) => state.runId).sort(), [...RUN_KINDS].sort());
    for (const state of states) {
      assert.deepEqual(stateAgreesWithTrail(state, await store.read(state.runId)).problems, [], state.runId);
      // Records of every run at once: those of other runs are left out.
      assert.deepEqual(stateAgreesWithTrail(state, await store.read()).problems, [], state.runId);
    }
    const { signerKey, verifierKey } = keygen("example.com/leash");
    const note = await signCheckpoint(store, { key: signerKey, origin: "example.com/leash" });
    assert.deepEqual(await verifyCheckpoint(store, note, { key: verifierKey }), []);
  }
});

test("a completed payment's result rewritten from 10 to 10000 is a state_mismatch of that step's result", async () => {
  const store = await filledMemoryStore();
  const problems = await afterEdit(store, "completed-payment", (json) => {
    json.steps[0]!.result = { paid: 10000 };
  });
  assert.deepEqual(placesOf(problems), [{ step: 0, field: "result" }]);
  assert.equal(problems[0]!.run, "completed-payment");
  assert.equal(problems[0]!.problem, "state_mismatch");
  assert.match(problems[0]!.message, /10000/);
});

test("each field a person is shown, changed in the saved state alone, is named by run, step and field", async () => {
  const store = await filledMemoryStore();
  const cases: { run: string; change: (json: RunStateJson) => void; expected: { step?: number; field: string }[] }[] = [
    {
      run: "completed-payment",
      change: (json) => {
        (json.steps[0]!.decision as { args: unknown }).args = { amount: 10000 };
      },
      expected: [{ step: 0, field: "arguments" }],
    },
    {
      run: "completed-payment",
      change: (json) => {
        (json.steps[0]!.decision as { reason?: string }).reason = "the boss said so";
      },
      expected: [{ step: 0, field: "reason" }],
    },
    {
      run: "denied",
      change: (json) => void (json.steps[0]!.outcome = "executed"),
      expected: [{ step: 0, field: "outcome" }],
    },
    {
      run: "completed-payment",
      change: (json) => void (json.steps[0]!.approval!.note = "the CFO agreed"),
      expected: [{ step: 0, field: "approval" }],
    },
    {
      run: "completed-payment",
      change: (json) => void (json.steps[0]!.approval!.approver = "ceo"),
      expected: [{ step: 0, field: "approval" }],
    },
    {
      run: "paused",
      change: (json) => void ((json.pending as CallApprovalRequest).args = { amount: 10000 }),
      expected: [{ step: 0, field: "pending.arguments" }],
    },
    {
      run: "paused",
      change: (json) => void ((json.pending as CallApprovalRequest).scopes = []),
      expected: [{ step: 0, field: "pending.scopes" }],
    },
    {
      run: "answered",
      change: (json) => void (json.answers[0]!.note = "pay them double"),
      expected: [{ step: 0, field: "answers" }],
    },
    {
      run: "answered",
      change: (json) => void (json.answers[1]!.granted = true),
      expected: [{ step: 0, field: "answers" }],
    },
    {
      // A denial taken out of the state alone would let a resume run what a person refused.
      run: "answered",
      change: (json) => void (json.answers = json.answers.filter((answer) => answer.granted)),
      expected: [{ step: 0, field: "answers" }],
    },
    {
      run: "answered",
      change: (json) => void (json.answers = []),
      expected: [{ step: 0, field: "answers" }],
    },
    { run: "model", change: (json) => void (json.usage.tokens = 1), expected: [{ field: "usage" }] },
    { run: "paused", change: (json) => void (json.toolCalls = 4), expected: [{ field: "toolCalls" }] },
    { run: "in-flight", change: (json) => void (json.usage.cost = 99), expected: [{ field: "usage" }] },
    {
      run: "withheld",
      change: (json) => void (json.steps[0]!.result = "secret"),
      expected: [{ step: 0, field: "result" }],
    },
    { run: "failed", change: (json) => void (json.failure!.message = "all fine"), expected: [{ field: "failure" }] },
    { run: "model", change: (json) => void (json.answer = { summary: "else" }), expected: [{ field: "answer" }] },
    { run: "model", change: (json) => void (json.goal = "something else"), expected: [{ field: "goal" }] },
    { run: "blocked", change: (json) => void (json.said = []), expected: [{ field: "said" }] },
    {
      run: "denied-steps",
      change: (json) => void (json.steps[2]!.error!.message = "fine"),
      expected: [{ step: 2, field: "error" }],
    },
    {
      run: "denied-steps",
      change: (json) => void json.steps.pop(),
      expected: [{ field: "steps" }],
    },
    {
      run: "stopped",
      change: (json) => {
        json.status = "completed";
        delete json.stopReason;
      },
      expected: [{ field: "status" }, { field: "stopReason" }],
    },
  ];
  for (const { run, change, expected } of cases) {
    const problems = await afterEdit(store, run, change);
    assert.deepEqual(placesOf(problems), expected, `${run}: ${change.toString()}: ${JSON.stringify(problems)}`);
    for (const problem of problems) assert.equal(problem.run, run);
  }
});

test("a step row rewritten in a SQLite file is found after the store assembles the state", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const store = new SqliteStore(`${folder.path}/runs.db`);
  t.after(() => store.close());
  await fillRunKinds(store);
  const { default: Database } = await import("better-sqlite3");
  const database = new Database(`${folder.path}/runs.db`);
  const row = database
    .prepare("SELECT step FROM steps WHERE run_id = ? AND step_index = 0")
    .get("completed-payment") as {
    step: string;
  };
  database
    .prepare("UPDATE steps SET step = ? WHERE run_id = ? AND step_index = 0")
    .run(
      row.step.replace('"amount":10}', '"amount":10000}').replace('"paid":10}', '"paid":10000}'),
      "completed-payment",
    );
  database.close();
  const state = (await store.load("completed-payment"))!;
  const problems = stateAgreesWithTrail(state, await store.read("completed-payment")).problems;
  assert.deepEqual(placesOf(problems), [
    { step: 0, field: "arguments" },
    { step: 0, field: "result" },
  ]);
});

test("the check never throws: hostile states, records of another run, no records, records that are not records", async () => {
  const store = await filledMemoryStore();
  const state = (await store.load("completed-payment"))!;
  const records = await store.read("completed-payment");
  const other = await store.read("model");
  const garbage: unknown[] = [
    null,
    7,
    "x",
    { run: "completed-payment" },
    { run: "completed-payment", seq: 1, event: "tool_ended", data: null },
  ];
  assert.deepEqual(placesOf(stateAgreesWithTrail(state, []).problems), [{ field: "trail" }]);
  assert.deepEqual(placesOf(stateAgreesWithTrail(state, other).problems), [{ field: "trail" }]);
  const inputs: [unknown, unknown][] = [
    [state, garbage],
    [state, [...records, ...garbage]],
    [null, records],
    [{}, records],
    [{ runId: "completed-payment", steps: [null, 3, { decision: null }] }, records],
    [{ runId: "completed-payment", steps: "no", answers: [null], usage: null }, records],
    [state, null],
    [state, records.map((record) => ({ ...record, data: [record.data] }))],
    [
      new Proxy(
        {},
        {
          get() {
            throw new Error("no field can be read");
          },
        },
      ),
      records,
    ],
  ];
  for (const [given, trail] of inputs) {
    const check = stateAgreesWithTrail(given as RunState, trail as AuditRecord[]);
    assert.ok(Array.isArray(check.problems));
    for (const problem of check.problems) assert.equal(problem.problem, "state_mismatch");
  }
  // A record shuffled into another place is not taken for the run's own order.
  assert.deepEqual(stateAgreesWithTrail(state, [...records].reverse()).problems, []);
});

test("what no record carries is said to be unchecked, not checked", async () => {
  const store = await filledMemoryStore();
  const { unchecked } = stateAgreesWithTrail((await store.load("denied-steps"))!, await store.read("denied-steps"));
  assert.ok(unchecked.some((line) => /createdAt/.test(line)));
  assert.ok(unchecked.some((line) => /step 0's error code/.test(line)));
});
