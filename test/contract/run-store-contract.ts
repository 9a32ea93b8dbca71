// The conformance suite every RunStore that is also an AuditSink runs (memory, SQLite, PostgreSQL):
// one function, given a way to make a fresh store. It assumes nothing of the backend: no file, no
// SQL, no order of `list()` beyond what the contract promises.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { agentContract } from "./agent-contract.js";
import { isLeashError, makeRecord, verifyAudit } from "../../src/index.js";
import type { AuditRecord, ErrorCode } from "../../src/index.js";
import type { UnreadableRun } from "../../src/stores/run-store.js";
import { Approval } from "../../src/index.js";
import { Worker } from "../../src/worker/index.js";
import { chain, headOf, refusedWith, stateOf, withStore, writerAgent } from "./contract-fixtures.js";
import { valuesContract } from "./values-contract.js";
import { saveSizeContract } from "./save-size-contract.js";
import { listPrefixContract } from "./list-prefix-contract.js";
import { grantsContract } from "./grants-contract.js";
import { grantsGateContract } from "./grants-gate-contract.js";
import type { MakeStore } from "./contract-fixtures.js";

export type { MakeStore, StoreUnderTest } from "./contract-fixtures.js";

/**
 * Defines `describe(name)` with the store contract's tests, each on a fresh store from `makeStore`
 * (whose `cleanup` is called after the test, passed or failed).
 *
 * @example
 * runStoreContract("MemoryStore", async () => ({ store: new MemoryStore(), cleanup: async () => {} }));
 */
export function runStoreContract(name: string, makeStore: MakeStore): void {
  describe(name, () => {
    test("load gives null for a run it does not hold, and read gives no records", () =>
      withStore(makeStore, async (store) => {
        assert.equal(await store.load("nowhere"), null);
        assert.deepEqual(await store.read("nowhere"), []);
        assert.deepEqual(await store.read(), []);
        assert.deepEqual(await store.list(), []);
      }));

    test("create then load gives back an equal state, and the records created with it", () =>
      withStore(makeStore, async (store) => {
        const records = chain("r1", 2);
        const state = stateOf("r1", { head: headOf(records) });
        await store.create(state, { records });
        const loaded = await store.load("r1");
        assert.ok(loaded !== null);
        assert.deepEqual(loaded.toJSON(), state.toJSON());
        assert.equal(loaded.revision, 1);
        assert.deepEqual(await store.read("r1"), records);
      }));

    test("a save moves the run to the next revision; load gives what was saved and the trail goes on", () =>
      withStore(makeStore, async (store) => {
        const first = chain("r1", 1);
        await store.create(stateOf("r1", { head: headOf(first) }), { records: first });
        const more = chain("r1", 2, first[0]);
        const next = stateOf("r1", { revision: 2, status: "awaiting_approval", head: headOf(more), goal: "changed" });
        await store.save(next, { expectedRevision: 1, records: more });
        const loaded = await store.load("r1");
        assert.deepEqual(loaded?.toJSON(), next.toJSON());
        assert.deepEqual(await store.read("r1"), [...first, ...more]);
      }));

    test("a save with a stale expectedRevision is refused with stale_state and writes neither state nor records", () =>
      withStore(makeStore, async (store) => {
        const first = chain("r1", 1);
        await store.create(stateOf("r1", { head: headOf(first) }), { records: first });
        // Two copies loaded at revision 1: the first save wins, the second is refused whole.
        const winner = chain("r1", 1, first[0], "winner");
        const loser = chain("r1", 1, first[0], "loser");
        await store.save(stateOf("r1", { revision: 2, goal: "winner", head: headOf(winner) }), {
          expectedRevision: 1,
          records: winner,
        });
        await assert.rejects(
          store.save(stateOf("r1", { revision: 2, goal: "loser", head: headOf(loser) }), {
            expectedRevision: 1,
            records: loser,
          }),
          refusedWith("stale_state"),
        );
        const loaded = await store.load("r1");
        assert.equal(loaded?.goal, "winner");
        assert.equal(loaded?.revision, 2);
        assert.deepEqual(await store.read("r1"), [...first, ...winner]);
        // The refusal left the store usable: a save from the stored revision goes through.
        const after = chain("r1", 1, winner[0]);
        await store.save(stateOf("r1", { revision: 3, head: headOf(after) }), { expectedRevision: 2, records: after });
        assert.equal((await store.load("r1"))?.revision, 3);
        assert.equal((await store.read("r1")).length, 3);
      }));

    test("a save whose revision is not expectedRevision + 1 is refused and changes nothing", () =>
      withStore(makeStore, async (store) => {
        await store.create(stateOf("r1"));
        await assert.rejects(
          store.save(stateOf("r1", { revision: 3, goal: "skipped" }), { expectedRevision: 1 }),
          refusedWith("invalid_state"),
        );
        assert.equal((await store.load("r1"))?.goal, "the goal of r1");
      }));

    test("a save of a run the store does not hold is refused with run_not_found", () =>
      withStore(makeStore, async (store) => {
        await assert.rejects(
          store.save(stateOf("ghost", { revision: 2 }), { expectedRevision: 1 }),
          refusedWith("run_not_found"),
        );
        assert.equal(await store.load("ghost"), null);
      }));

    test("create refuses a run id already stored (run_exists) and changes nothing", () =>
      withStore(makeStore, async (store) => {
        const records = chain("r1", 1);
        await store.create(stateOf("r1", { head: headOf(records) }), { records });
        await assert.rejects(
          store.create(stateOf("r1", { goal: "again" }), { records: chain("r1", 1) }),
          refusedWith("run_exists"),
        );
        assert.equal((await store.load("r1"))?.goal, "the goal of r1");
        assert.deepEqual(await store.read("r1"), records);
      }));

    test("create refuses a run id that only the trail knows (run_exists)", () =>
      withStore(makeStore, async (store) => {
        await store.append(chain("orphan", 2));
        await assert.rejects(store.create(stateOf("orphan")), refusedWith("run_exists"));
        assert.equal(await store.load("orphan"), null);
        assert.equal((await store.read("orphan")).length, 2);
      }));

    test("appended records come back per run in seq order, and all in the order written", () =>
      withStore(makeStore, async (store) => {
        const a = chain("a", 3);
        const b = chain("b", 2);
        const written = [a[0], b[0], a[1], b[1], a[2]].map((record) => record!);
        await store.append(written.slice(0, 2));
        await store.append(written.slice(2, 3));
        await store.append(written.slice(3));
        assert.deepEqual(await store.read("a"), a);
        assert.deepEqual(await store.read("b"), b);
        assert.deepEqual(await store.read(), written);
        if ("records" in store) assert.deepEqual(store.records, written);
      }));

    test("list gives every run, and with a status only those: awaiting_approval is the inbox", () =>
      withStore(makeStore, async (store) => {
        await store.create(stateOf("busy", { status: "running" }));
        await store.create(stateOf("paused-1", { status: "awaiting_approval" }));
        await store.create(stateOf("done", { status: "completed" }));
        await store.create(stateOf("paused-2", { status: "awaiting_approval" }));
        const ids = async (status?: Parameters<typeof store.list>[0]) =>
          (await store.list(status)).map((state) => state.runId).sort();
        assert.deepEqual(await ids(), ["busy", "done", "paused-1", "paused-2"]);
        assert.deepEqual(await ids({ status: "awaiting_approval" }), ["paused-1", "paused-2"]);
        assert.deepEqual(await ids({ status: "failed" }), []);
        // A save that changes the status moves the run out of the inbox.
        await store.save(stateOf("paused-1", { revision: 2, status: "running" }), { expectedRevision: 1 });
        assert.deepEqual(await ids({ status: "awaiting_approval" }), ["paused-2"]);
        assert.deepEqual(await ids({ status: "running" }), ["busy", "paused-1"]);
      }));

    // ---- Chains and unreadable rows: the same rule in every store (issue 8, items 7, 12, 13). ----

    test("append refuses records that break a run's chain before writing anything: a taken seq is stale_state, a gap or a wrong prev audit_corrupt", () =>
      withStore(makeStore, async (store) => {
        const records = chain("c1", 3);
        await store.append(records);
        const last = records[2] as AuditRecord;
        const refusals: Array<[AuditRecord[], ErrorCode]> = [
          [chain("c1", 1, records[1] ?? null, "late"), "stale_state"],
          [chain("c1", 1, records[0] ?? null, "late"), "stale_state"],
          [chain("c1", 2, last ?? null).slice(1), "audit_corrupt"],
          [
            [makeRecord("c1", { seq: 2, digest: "0".repeat(64) }, "note", {}, "2026-01-01T00:00:00.000Z")],
            "audit_corrupt",
          ],
          [chain("other", 2).slice(1), "audit_corrupt"],
          [[...chain("fresh", 1), ...chain("c1", 2, last ?? null).slice(1)], "audit_corrupt"],
        ];
        for (const [batch, code] of refusals) {
          await assert.rejects(
            Promise.resolve().then(() => store.append(batch)),
            refusedWith(code),
            `${batch.map((record) => `${record.run}/${record.seq}`).join(", ")} should be ${code}`,
          );
        }
        assert.deepEqual(await store.read(), records);
        const next = chain("c1", 1, last ?? null);
        await store.append(next);
        assert.deepEqual(await store.read("c1"), [...records, ...next]);
        assert.deepEqual(verifyAudit(await store.read()), []);
      }));

    test("a save whose records break the run's chain is refused whole: neither the state nor any record is written", () =>
      withStore(makeStore, async (store) => {
        const first = chain("c2", 2);
        await store.create(stateOf("c2", { head: headOf(first) }), { records: first });
        const gap = chain("c2", 2, first[1] ?? null).slice(1);
        const wrongLink = [
          makeRecord("c2", { seq: 1, digest: "f".repeat(64) }, "note", {}, "2026-01-01T00:00:00.000Z"),
        ];
        for (const records of [gap, wrongLink]) {
          await assert.rejects(
            store.save(stateOf("c2", { revision: 2, goal: "moved", head: headOf(records) }), {
              expectedRevision: 1,
              records,
            }),
            refusedWith("audit_corrupt"),
          );
        }
        await assert.rejects(
          store.create(stateOf("c3"), { records: chain("c3", 3).slice(1) }),
          refusedWith("audit_corrupt"),
        );
        assert.equal(await store.load("c3"), null);
        const loaded = await store.load("c2");
        assert.equal(loaded?.revision, 1);
        assert.equal(loaded?.goal, "the goal of c2");
        assert.deepEqual(await store.read(), first);
      }));

    test("the head of a run's chain is read from plain columns: a last record whose text is nested 1,500 deep does not wedge the run", (t) =>
      withStore(makeStore, async (store, raw) => {
        if (raw === undefined) return t.skip("this store has no driver to write rows behind its back");
        const records = chain("deep", 2);
        await store.append(records);
        const last = records[1] as AuditRecord;
        const deep = `${"[".repeat(1500)}${"]".repeat(1500)}`;
        await raw.setRecordText(
          "deep",
          1,
          JSON.stringify({ ...last, data: null }).replace('"data":null', `"data":${deep}`),
        );
        const next = chain("deep", 1, last);
        await store.append(next);
        const append = (records: AuditRecord[]): Promise<void> => Promise.resolve().then(() => store.append(records));
        await assert.rejects(append(next), refusedWith("stale_state"));
        await assert.rejects(append(chain("deep", 2, last, "other").slice(1)), refusedWith("audit_corrupt"));
      }));

    test("list leaves out a run whose stored state cannot be read, reports it to onUnreadable, and lists the rest", (t) =>
      withStore(makeStore, async (store, raw) => {
        if (raw === undefined) return t.skip("this store has no driver to damage a row with");
        await store.create(stateOf("good-1", { status: "awaiting_approval" }));
        await store.create(stateOf("bad", { status: "awaiting_approval" }));
        await store.create(stateOf("good-2", { status: "completed" }));
        await raw.setStateText("bad", '{"format":"leash.run-state","version":1,"runId":"bad"');
        const unreadable: UnreadableRun[] = [];
        const listed = await store.list({ onUnreadable: (problem) => unreadable.push(problem) });
        assert.deepEqual(listed.map((state) => state.runId).sort(), ["good-1", "good-2"]);
        assert.deepEqual(
          unreadable.map((problem) => problem.runId),
          ["bad"],
        );
        assert.ok(isLeashError(unreadable[0]?.error, "invalid_state"), String(unreadable[0]?.error));
        const inbox = await store.list({
          status: "awaiting_approval",
          onUnreadable: (problem) => unreadable.push(problem),
        });
        assert.deepEqual(
          inbox.map((state) => state.runId),
          ["good-1"],
        );
        assert.equal(unreadable.length, 2);
        // Without a listener the listing still never fails for one bad row.
        assert.deepEqual((await store.list()).map((state) => state.runId).sort(), ["good-1", "good-2"]);
        await assert.rejects(store.load("bad"), refusedWith("invalid_state"));
      }));

    test("a worker's poll skips a run whose stored state cannot be read, logs it once, and resumes the rest", (t) =>
      withStore(makeStore, async (store, raw) => {
        if (raw === undefined) return t.skip("this store has no driver to damage a row with");
        const written: string[] = [];
        const agent = writerAgent(store, written);
        for (const runId of ["bad", "good"]) {
          const paused = await agent.run("save the report", { runId });
          await store.answer(runId, Approval.grant(paused.pending!.digest, "allen"));
        }
        await raw.setStateText("bad", "{ not a state");
        const errors: string[] = [];
        const logger = {
          info: () => undefined,
          warn: () => undefined,
          error: (message: string) => errors.push(message),
        };
        const worker = new Worker({ agent, store, logger, pollMs: 10 });
        assert.equal(await worker.runOnce(), 1);
        assert.equal(await worker.runOnce(), 0);
        assert.deepEqual(written, ["the report"]);
        assert.equal((await store.load("good"))?.status, "completed");
        assert.equal(errors.filter((message) => message.includes("`bad`")).length, 1, errors.join("\n"));
      }));

    agentContract(makeStore);
    valuesContract(makeStore);
    saveSizeContract(makeStore);
    listPrefixContract(makeStore);
    grantsContract(makeStore);
    grantsGateContract(makeStore);
  });
}
