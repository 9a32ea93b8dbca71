// The outbox in every store (API.md section 19, "Webhooks"): the events a save makes true are written
// with it, once per request awaited, end and gave-up (never again under another id, never by a save
// the compare-and-set refused), and a deliverer claims, settles, starts on, prunes and lists them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, Policy, isLeashError } from "../../src/index.js";
import type { AuditSink, NotificationEvent, RunStore } from "../../src/index.js";
import { chain, headOf, stateOf, withStore, writerAgent } from "./contract-fixtures.js";
import type { MakeStore } from "./contract-fixtures.js";
import { paymentGate } from "../gate/gate-fixtures.js";
import { writeTextTool } from "../helpers/text-tool.js";

type OutboxMethods =
  "notifications" | "claimNotifications" | "settleNotification" | "startNotifications" | "pruneNotifications";
type OutboxStore = RunStore & AuditSink & Required<Pick<RunStore, OutboxMethods>>;

const DAY = 24 * 60 * 60 * 1000;
const ID = /^msg_[0-9a-f]{32}$/;

/** Every event of the outbox, newest first, read page by page. */
async function allEvents(store: OutboxStore, status?: NotificationEvent["status"]): Promise<NotificationEvent[]> {
  const events: NotificationEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.notifications({
      limit: 2,
      ...(status === undefined ? {} : { status }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    events.push(...page.events);
    cursor = page.next;
  } while (cursor !== undefined);
  return events;
}

function ofRun(events: NotificationEvent[], runId: string): NotificationEvent[] {
  return events.filter((event) => event.runId === runId);
}

/** A run of the writer agent, paused on its one write; returns the pending request's digest. */
async function pausedRun(store: OutboxStore, runId: string): Promise<string> {
  const paused = await writerAgent(store, []).run("save the report", { runId });
  assert.equal(paused.status, "awaiting_approval");
  return paused.pending!.digest;
}

/** The outbox tests, on a fresh store each. */
export function notificationsContract(makeStore: MakeStore): void {
  const withOutbox = (body: (store: OutboxStore) => Promise<void>) =>
    withStore(makeStore, (store) => body(store as OutboxStore));

  test("a paused run writes one approval_requested for its request, and saving it again writes no other", () =>
    withOutbox(async (store) => {
      const before = Date.now();
      const digest = await pausedRun(store, "paused");
      // An answer that decides nothing yet (a denial is recorded the same way) saves the run again, still paused.
      await store.answer("paused", Approval.grant(digest, "allen"));
      await store.answer("paused", Approval.grant(digest, "bea"));
      const events = await allEvents(store);
      assert.equal(events.length, 1);
      const [event] = events;
      assert.match(event!.id, ID);
      assert.equal(event!.type, "approval_requested");
      assert.equal(event!.runId, "paused");
      assert.equal(event!.key, digest);
      assert.equal(event!.status, "pending");
      assert.equal(event!.attempts, 0);
      assert.equal(event!.lastError, null);
      assert.equal(event!.deliveredAt, null);
      assert.ok(Date.parse(event!.createdAt) >= before - 1000);
      assert.ok(Date.parse(event!.nextAttemptAt!) <= Date.now());
      assert.ok(!Number.isNaN(Date.parse(event!.timestamp)));
      const data = event!.data as { runId: string; request: { digest: string; tool: string; step: number } };
      assert.equal(data.runId, "paused");
      assert.equal(data.request.digest, digest);
      assert.equal(data.request.tool, "save");
      assert.equal(data.request.step, 0);
    }));

  test("a gate session writes one approval_requested per request waiting, each keyed by its digest", () =>
    withOutbox(async (store) => {
      const { gate } = paymentGate(store);
      const session = await gate.session("chat");
      assert.equal((await session.call("p1", "pay", { amount: 5 })).status, "awaiting_approval");
      assert.equal((await session.call("p2", "pay", { amount: 6 })).status, "awaiting_approval");
      assert.equal((await session.call("p1", "pay", { amount: 5 })).status, "awaiting_approval");
      const waiting = (await store.load("chat"))!.waiting!.map((request) => request.digest);
      assert.equal(waiting.length, 2);
      const events = (await allEvents(store)).toReversed();
      assert.deepEqual(
        events.map((event) => [event.type, event.key]),
        waiting.map((digest) => ["approval_requested", digest]),
      );
      assert.deepEqual(
        events.map((event) => (event.data.request as { args: unknown }).args),
        [{ amount: 5 }, { amount: 6 }],
      );
    }));

  test("a request whose arguments hold a NUL and odd text is announced with them exactly", () =>
    withOutbox(async (store) => {
      const text = 'a\u0000b \u{1F600} "quoted" \\ end';
      const agent = new Agent({
        tools: [writeTextTool({ name: "save", onWrite: () => "saved" })],
        planner: (state) => (state.steps.length === 0 ? Decision.act("save", { text }) : Decision.finish(null)),
        policy: new Policy({ allowEffects: ["read", "write"] }),
        store,
        audit: store,
      });
      const paused = await agent.run("save it", { runId: "odd" });
      const [event] = await allEvents(store);
      assert.equal(event!.key, paused.pending!.digest);
      assert.deepEqual((event!.data.request as { args: unknown }).args, { text });
    }));

  test("the end of a run writes one run_ended with its status; the approval_requested before it stays one", () =>
    withOutbox(async (store) => {
      const digest = await pausedRun(store, "ends");
      await store.answer("ends", Approval.grant(digest, "allen"));
      const done = await writerAgent(store, []).resume("ends");
      assert.equal(done.status, "completed");
      const events = ofRun(await allEvents(store), "ends");
      assert.deepEqual(
        events.map((event) => [event.type, event.key]),
        [
          ["run_ended", "end"],
          ["approval_requested", digest],
        ],
      );
      assert.deepEqual(events[0]!.data, { runId: "ends", status: "completed" });
      assert.notEqual(events[0]!.id, events[1]!.id);
    }));

  test("a stopped run's run_ended names why; a failed run's names its failure", () =>
    withOutbox(async (store) => {
      const digest = await pausedRun(store, "denied");
      await store.answer("denied", Approval.deny(digest, "allen", "not today"));
      await writerAgent(store, []).resume("denied");
      const created = chain("failed", 1);
      await store.create(stateOf("failed", { head: headOf(created) }), { records: created });
      const failed = stateOf("failed", { revision: 2, status: "failed", head: headOf(created) });
      failed.failure = { code: "planner_failed", message: "the planner threw" };
      await store.save(failed, { expectedRevision: 1 });
      const events = await allEvents(store);
      const ended = (runId: string) => ofRun(events, runId).find((event) => event.type === "run_ended")!;
      const stopped = ended("denied").data;
      assert.equal(stopped.runId, "denied");
      assert.equal(typeof stopped.status, "string");
      assert.deepEqual(ended("failed").data, {
        runId: "failed",
        status: "failed",
        failure: { code: "planner_failed", message: "the planner threw" },
      });
    }));

  test("a save that carries a gave_up record writes one gave_up event, with the record's time and data", () =>
    withOutbox(async (store) => {
      const first = chain("work", 1);
      await store.create(stateOf("work", { head: headOf(first) }), { records: first });
      const end = chain("work", 1, first[0], "run_failed");
      const failed = stateOf("work", { revision: 2, status: "failed", head: headOf(end) });
      failed.failure = { code: "planner_failed", message: "no luck" };
      await store.save(failed, { expectedRevision: 1, records: end });
      const note = chain("work", 1, end[0], "gave_up");
      const noted = stateOf("work", { revision: 3, status: "failed", head: headOf(note) });
      noted.failure = failed.failure;
      await store.save(noted, { expectedRevision: 2, records: note });
      // Saved again (a later take-over of the ended run): nothing new.
      await store.save(stateOf("work", { revision: 4, status: "failed", head: headOf(note) }), {
        expectedRevision: 3,
      });
      const events = await allEvents(store);
      assert.deepEqual(
        events.map((event) => [event.type, event.key]),
        [
          ["gave_up", "gave_up"],
          ["run_ended", "end"],
        ],
      );
      assert.equal(events[0]!.timestamp, note[0]!.at);
      assert.equal(events[0]!.data.runId, "work");
      assert.equal(events[0]!.data.problem, "no luck");
    }));

  test("a save the compare-and-set refuses writes no event", () =>
    withOutbox(async (store) => {
      const first = chain("raced", 1);
      await store.create(stateOf("raced", { head: headOf(first) }), { records: first });
      await store.save(stateOf("raced", { revision: 2, head: headOf(first) }), { expectedRevision: 1 });
      await assert.rejects(
        store.save(stateOf("raced", { revision: 2, status: "completed", head: headOf(first) }), {
          expectedRevision: 1,
        }),
        (error) => isLeashError(error, "stale_state"),
      );
      assert.deepEqual(await allEvents(store), []);
      await store.save(stateOf("raced", { revision: 3, status: "completed", head: headOf(first) }), {
        expectedRevision: 2,
      });
      assert.deepEqual(
        (await allEvents(store)).map((event) => event.type),
        ["run_ended"],
      );
    }));

  test("a claim leases the due events oldest first: a second claim right after gets none, one after the lease gets them again", () =>
    withOutbox(async (store) => {
      await pausedRun(store, "one");
      await pausedRun(store, "two");
      const now = new Date(Date.now() + 1000);
      const claimed = await store.claimNotifications({ now, limit: 10, leaseMs: 30_000 });
      assert.deepEqual(
        claimed.map((event) => event.runId),
        ["one", "two"],
      );
      for (const event of claimed) assert.equal(event.nextAttemptAt, new Date(now.getTime() + 30_000).toISOString());
      assert.deepEqual(await store.claimNotifications({ now, limit: 10, leaseMs: 30_000 }), []);
      const limited = await store.claimNotifications({ now: new Date(now.getTime() + 30_000), limit: 1, leaseMs: 5 });
      assert.deepEqual(
        limited.map((event) => event.id),
        [claimed[0]!.id],
      );
      // Not due yet: an event whose next attempt is later is not handed out.
      assert.deepEqual(await store.claimNotifications({ now: new Date(Date.now() - DAY), limit: 10, leaseMs: 5 }), []);
    }));

  test("settling: delivered, tried again later, then failed; a settled event changes no more; an unknown id changes nothing", () =>
    withOutbox(async (store) => {
      await pausedRun(store, "one");
      await pausedRun(store, "two");
      const [one, two] = await store.claimNotifications({ now: new Date(Date.now() + 1000), limit: 10, leaseMs: 1000 });
      const at = new Date("2030-01-02T03:04:05.000Z");
      await store.settleNotification(one!.id, { delivered: true, at });
      const retry = new Date("2030-01-02T03:05:00.000Z");
      await store.settleNotification(two!.id, {
        delivered: false,
        error: "HTTP 503",
        attempts: 1,
        nextAttemptAt: retry,
      });
      let events = await allEvents(store);
      const byId = (id: string) => events.find((event) => event.id === id)!;
      assert.equal(byId(one!.id).status, "delivered");
      assert.equal(byId(one!.id).deliveredAt, at.toISOString());
      assert.equal(byId(one!.id).nextAttemptAt, null);
      assert.equal(byId(one!.id).attempts, 1);
      assert.equal(byId(two!.id).status, "pending");
      assert.equal(byId(two!.id).attempts, 1);
      assert.equal(byId(two!.id).lastError, "HTTP 503");
      assert.equal(byId(two!.id).nextAttemptAt, retry.toISOString());
      await store.settleNotification(two!.id, {
        delivered: false,
        error: "timed out",
        attempts: 9,
        nextAttemptAt: null,
      });
      await store.settleNotification(one!.id, { delivered: false, error: "late", attempts: 5, nextAttemptAt: null });
      await store.settleNotification("msg_00000000000000000000000000000000", { delivered: true, at });
      events = await allEvents(store);
      assert.equal(byId(two!.id).status, "failed");
      assert.equal(byId(two!.id).attempts, 9);
      assert.equal(byId(two!.id).lastError, "timed out");
      assert.equal(byId(two!.id).nextAttemptAt, null);
      assert.equal(byId(one!.id).status, "delivered");
      assert.deepEqual(await store.claimNotifications({ now: new Date("2031-01-01"), limit: 10, leaseMs: 1 }), []);
      assert.deepEqual(
        (await allEvents(store, "failed")).map((event) => event.id),
        [two!.id],
      );
    }));

  test("the first start skips old pending events except the requests still awaited; a later start skips nothing", () =>
    withOutbox(async (store) => {
      const waiting = await pausedRun(store, "waiting");
      const answered = await pausedRun(store, "answered");
      await store.answer("answered", Approval.grant(answered, "allen"));
      await writerAgent(store, []).resume("answered");
      // Two days on, with a day to catch up: every event is too old, but run "waiting" still waits.
      const later = new Date(Date.now() + 2 * DAY);
      const started = await store.startNotifications({ now: later, catchUpMs: DAY });
      assert.deepEqual(started, { first: true, skipped: 2 });
      const events = await allEvents(store);
      const statusOf = (runId: string, type: string) =>
        events.find((event) => event.runId === runId && event.type === type)!.status;
      assert.equal(statusOf("waiting", "approval_requested"), "pending");
      assert.equal(statusOf("answered", "approval_requested"), "skipped");
      assert.equal(statusOf("answered", "run_ended"), "skipped");
      for (const event of await allEvents(store, "skipped")) assert.equal(event.nextAttemptAt, null);
      assert.deepEqual(
        (await store.claimNotifications({ now: later, limit: 10, leaseMs: 1 })).map((event) => event.key),
        [waiting],
      );
      await pausedRun(store, "newer");
      assert.deepEqual(await store.startNotifications({ now: new Date(Date.now() + 9 * DAY), catchUpMs: 0 }), {
        first: false,
        skipped: 0,
      });
      assert.equal((await allEvents(store, "pending")).length, 2);
    }));

  test("the first start keeps recent events pending", () =>
    withOutbox(async (store) => {
      await pausedRun(store, "fresh");
      const answered = await pausedRun(store, "done");
      await store.answer("done", Approval.grant(answered, "allen"));
      await writerAgent(store, []).resume("done");
      assert.deepEqual(await store.startNotifications({ now: new Date(), catchUpMs: DAY }), {
        first: true,
        skipped: 0,
      });
      assert.equal((await allEvents(store, "pending")).length, 3);
    }));

  test("pruning deletes only the events delivered before the time given", () =>
    withOutbox(async (store) => {
      for (const runId of ["a", "b", "c"]) await pausedRun(store, runId);
      const [a, b] = await store.claimNotifications({ now: new Date(Date.now() + 1000), limit: 2, leaseMs: 1000 });
      await store.settleNotification(a!.id, { delivered: true, at: new Date("2030-01-01T00:00:00Z") });
      await store.settleNotification(b!.id, { delivered: true, at: new Date("2030-01-09T00:00:00Z") });
      assert.equal(await store.pruneNotifications({ deliveredBefore: new Date("2030-01-05T00:00:00Z") }), 1);
      assert.deepEqual(
        (await allEvents(store)).map((event) => event.runId),
        ["c", "b"],
      );
      assert.equal(await store.pruneNotifications({ deliveredBefore: new Date("2030-01-05T00:00:00Z") }), 0);
    }));

  test("a request still awaited after its delivered event was pruned is not announced again under a new id", () =>
    withOutbox(async (store) => {
      const paused = await pausedRun(store, "long");
      const [event] = await store.claimNotifications({ now: new Date(Date.now() + 1000), limit: 1, leaseMs: 1000 });
      await store.settleNotification(event!.id, { delivered: true, at: new Date("2020-01-01T00:00:00Z") });
      assert.equal(await store.pruneNotifications({ deliveredBefore: new Date("2020-01-08T00:00:00Z") }), 1);
      // An answer is a save of the run, which still awaits the same request until it is resumed.
      await store.answer("long", Approval.grant(paused, "allen"));
      assert.deepEqual(await allEvents(store), [], "nothing listed, nothing pending again");
      assert.deepEqual(
        await store.claimNotifications({ now: new Date(Date.now() + 60_000), limit: 10, leaseMs: 1000 }),
        [],
      );
    }));

  test("the listing is newest first, filtered by status, paged by its cursor without repeats or gaps", () =>
    withOutbox(async (store) => {
      const runs = ["r1", "r2", "r3", "r4", "r5"];
      for (const runId of runs) await pausedRun(store, runId);
      const first = await store.notifications({ limit: 2 });
      assert.deepEqual(
        first.events.map((event) => event.runId),
        ["r5", "r4"],
      );
      assert.equal(typeof first.next, "string");
      const second = await store.notifications({ limit: 2, cursor: first.next! });
      assert.deepEqual(
        second.events.map((event) => event.runId),
        ["r3", "r2"],
      );
      const third = await store.notifications({ limit: 2, cursor: second.next! });
      assert.deepEqual(
        third.events.map((event) => event.runId),
        ["r1"],
      );
      assert.equal(third.next, undefined);
      const [oldest] = await store.claimNotifications({ now: new Date(Date.now() + 1000), limit: 1, leaseMs: 1 });
      await store.settleNotification(oldest!.id, { delivered: true, at: new Date() });
      assert.deepEqual(
        (await allEvents(store, "delivered")).map((event) => event.runId),
        ["r1"],
      );
      assert.deepEqual(
        (await allEvents(store, "pending")).map((event) => event.runId),
        ["r5", "r4", "r3", "r2"],
      );
      assert.deepEqual((await store.notifications()).events.length, 5);
    }));

  test("bad options are refused with invalid_option", () =>
    withOutbox(async (store) => {
      const invalid = (error: unknown) => isLeashError(error, "invalid_option");
      await assert.rejects(store.notifications({ limit: 0 }), invalid);
      await assert.rejects(store.notifications({ status: "sent" as never }), invalid);
      await assert.rejects(store.notifications({ cursor: "nope" }), invalid);
      await assert.rejects(store.notifications({ colour: "red" } as never), invalid);
      await assert.rejects(store.claimNotifications({ now: new Date("x"), limit: 1, leaseMs: 1 }), invalid);
      await assert.rejects(store.claimNotifications({ now: new Date(), limit: 0, leaseMs: 1 }), invalid);
      await assert.rejects(store.settleNotification("", { delivered: true, at: new Date() }), invalid);
      await assert.rejects(store.startNotifications({ now: new Date(), catchUpMs: -1 }), invalid);
      await assert.rejects(store.pruneNotifications({ deliveredBefore: "yesterday" as never }), invalid);
    }));
}
