// Standing grants under a quorum above one (API.md section 16): up to the quorum's number of grants
// of distinct givers are used, oldest first, their uses taken together; those short of the quorum
// are kept as recorded answers while the run pauses, and a resume counts them with the people's.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  Agent,
  Approval,
  Decision,
  MemoryAuditSink,
  MemoryStore,
  Policy,
  stateAgreesWithTrail,
  tool,
  verifyAudit,
} from "../../src/index.js";
import type { AuditSink, Json, RunState, RunStore } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { tempFolder } from "../cli/cli-helpers.js";

type Store = RunStore & Required<Pick<RunStore, "grant" | "grants">>;

interface Setup {
  store: Store;
  audit: AuditSink;
  close(): Promise<void>;
}

const setups: [string, () => Setup][] = [
  [
    "a MemoryStore",
    () => {
      const store = new MemoryStore();
      return { store, audit: store, close: () => Promise.resolve() };
    },
  ],
  [
    "a SQLite file",
    () => {
      const folder = tempFolder();
      const store = new SqliteStore(join(folder.path, "runs.db"));
      return {
        store,
        audit: store,
        close: async () => {
          await store.close();
          folder.remove();
        },
      };
    },
  ],
  [
    "a SQLite file with a separate sink",
    () => {
      const folder = tempFolder();
      const store = new SqliteStore(join(folder.path, "runs.db"));
      return {
        store,
        audit: new MemoryAuditSink(),
        close: async () => {
          await store.close();
          folder.remove();
        },
      };
    },
  ],
];

/** A payer whose payments need two distinct approvers; it proposes to pay 30. */
function payer(setup: Setup, paid: Json[]): Agent {
  const pay = tool({
    name: "pay",
    effect: "write",
    parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
    execute: (args) => {
      paid.push(args);
      return "paid";
    },
  });
  return new Agent({
    tools: [pay],
    store: setup.store,
    audit: setup.audit,
    policy: new Policy({ allowEffects: ["read", "write"], quorum: () => 2 }),
    planner: (state) => (state.steps.length === 0 ? Decision.act("pay", { amount: 30 }) : Decision.finish("done")),
  });
}

async function usesOf(store: Store): Promise<Record<string, number>> {
  const uses: Record<string, number> = {};
  for (const grant of await store.grants()) uses[`${grant.by}:${grant.note ?? ""}`] = grant.uses;
  return uses;
}

async function trailAgrees(setup: Setup, state: RunState): Promise<void> {
  const records = await setup.audit.read(state.runId);
  assert.deepEqual(verifyAudit(records), []);
  const stored = await setup.store.load(state.runId);
  // With a separate sink, an answer recorded in the store reaches the trail at the run's next claim:
  // a run still paused holds answers the trail does not have yet.
  if ((setup.audit as unknown) !== setup.store && stored?.status === "awaiting_approval") return;
  assert.deepEqual(stateAgreesWithTrail(stored!, records).problems, []);
}

for (const [name, open] of setups) {
  describe(`standing grants under a quorum of two, on ${name}`, () => {
    test("two grants of distinct givers approve the call together, one use each, and nobody is asked", async () => {
      const setup = open();
      try {
        await setup.store.grant({ tool: "pay", maxUses: 3, by: "noor", note: "a" });
        await setup.store.grant({ tool: "pay", maxUses: 3, by: "sam", note: "b" });
        const paid: Json[] = [];
        const done = await payer(setup, paid).run("pay the bill", { runId: "both" });
        assert.equal(done.status, "completed");
        assert.deepEqual(paid, [{ amount: 30 }]);
        assert.deepEqual(await usesOf(setup.store), { "noor:a": 1, "sam:b": 1 });
        const records = await setup.audit.read("both");
        assert.equal(records.filter((record) => record.event === "approval_requested").length, 0);
        const answers = records.filter((record) => record.event === "approval_answered");
        assert.deepEqual(
          answers.map((record) => [
            (record.data as { approver: string }).approver,
            (record.data as { origin: { via: string } }).origin.via,
          ]),
          [
            ["noor", "grant"],
            ["sam", "grant"],
          ],
        );
        await trailAgrees(setup, done);
      } finally {
        await setup.close();
      }
    });

    test("two grants of one giver count once: the run pauses with one grant recorded as an answer, and a person completes the quorum", async () => {
      const setup = open();
      try {
        await setup.store.grant({ tool: "pay", maxUses: 3, by: "noor", note: "a" });
        await setup.store.grant({ tool: "pay", maxUses: 3, by: "noor", note: "b" });
        const paid: Json[] = [];
        const agent = payer(setup, paid);
        const paused = await agent.run("pay the bill", { runId: "one-giver" });
        assert.equal(paused.status, "awaiting_approval");
        assert.deepEqual(paid, []);
        assert.deepEqual(
          paused.answers.map((answer) => [answer.approver, answer.granted, answer.origin?.via]),
          [["noor", true, "grant"]],
        );
        assert.deepEqual(await usesOf(setup.store), { "noor:a": 1, "noor:b": 0 });
        // Resumed with nothing new, it stays paused and takes no further use.
        assert.equal((await agent.resume("one-giver")).status, "awaiting_approval");
        assert.deepEqual(await usesOf(setup.store), { "noor:a": 1, "noor:b": 0 });
        await setup.store.answer("one-giver", Approval.grant(paused.pending!.digest, "sam"));
        const done = await agent.resume("one-giver");
        assert.equal(done.status, "completed");
        assert.deepEqual(paid, [{ amount: 30 }]);
        assert.deepEqual(await usesOf(setup.store), { "noor:a": 1, "noor:b": 0 });
        await trailAgrees(setup, done);
      } finally {
        await setup.close();
      }
    });

    test("grants given after the pause count at the next resume: with a person's answer, or two of them alone", async () => {
      const setup = open();
      try {
        const paid: Json[] = [];
        const agent = payer(setup, paid);
        const first = await agent.run("pay the first bill", { runId: "later-one" });
        const second = await agent.run("pay the second bill", { runId: "later-two" });
        assert.equal(first.status, "awaiting_approval");
        assert.equal(second.status, "awaiting_approval");
        await setup.store.answer("later-one", Approval.grant(first.pending!.digest, "sam"));
        await setup.store.grant({ tool: "pay", maxUses: 2, by: "noor", note: "a" });
        // noor's grant and sam's answer meet the quorum of the first run.
        const one = await agent.resume("later-one");
        assert.equal(one.status, "completed");
        assert.deepEqual(await usesOf(setup.store), { "noor:a": 1 });
        // The second run has noor's grant only: short, it stays paused with that answer recorded.
        const short = await agent.resume("later-two");
        assert.equal(short.status, "awaiting_approval");
        assert.deepEqual(await usesOf(setup.store), { "noor:a": 2 });
        await setup.store.grant({ tool: "pay", maxUses: 1, by: "ada", note: "b" });
        const two = await agent.resume("later-two");
        assert.equal(two.status, "completed");
        assert.deepEqual(paid, [{ amount: 30 }, { amount: 30 }]);
        assert.deepEqual(await usesOf(setup.store), { "noor:a": 2, "ada:b": 1 });
        await trailAgrees(setup, one);
        await trailAgrees(setup, two);
      } finally {
        await setup.close();
      }
    });

    test("a denial recorded before stands: no grant is recorded or used, and the call is denied", async () => {
      const setup = open();
      try {
        const paid: Json[] = [];
        const agent = payer(setup, paid);
        const paused = await agent.run("pay the bill", { runId: "denied" });
        await setup.store.answer("denied", Approval.deny(paused.pending!.digest, "sam", "not this one"));
        await setup.store.grant({ tool: "pay", maxUses: 2, by: "noor", note: "a" });
        await setup.store.grant({ tool: "pay", maxUses: 2, by: "ada", note: "b" });
        const done = await agent.resume("denied");
        assert.equal(done.steps[0]?.outcome, "approval_denied");
        assert.deepEqual(paid, []);
        assert.deepEqual(await usesOf(setup.store), { "noor:a": 0, "ada:b": 0 });
        await trailAgrees(setup, done);
      } finally {
        await setup.close();
      }
    });

    test("runs racing for a grant of one use under the quorum: one of them takes it, the other pauses", async () => {
      const setup = open();
      try {
        await setup.store.grant({ tool: "pay", maxUses: 1, by: "noor", note: "a" });
        await setup.store.grant({ tool: "pay", maxUses: 2, by: "sam", note: "b" });
        const paid: Json[] = [];
        const agent = payer(setup, paid);
        const ends = await Promise.all([
          agent.run("pay the first bill", { runId: "race-1" }),
          agent.run("pay the second bill", { runId: "race-2" }),
        ]);
        assert.deepEqual(ends.map((state) => state.status).sort(), ["awaiting_approval", "completed"]);
        assert.equal(paid.length, 1);
        const uses = await usesOf(setup.store);
        assert.equal(uses["noor:a"], 1);
        // The paused run holds sam's grant as its one recorded answer, short of the quorum.
        const paused = ends.find((state) => state.status === "awaiting_approval")!;
        assert.deepEqual(
          paused.answers.map((answer) => answer.approver),
          ["sam"],
        );
        assert.equal(uses["sam:b"], 2);
        for (const state of ends) await trailAgrees(setup, state);
      } finally {
        await setup.close();
      }
    });
  });
}
