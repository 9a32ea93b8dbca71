// The deliverer against MemoryStore's outbox and a real loopback receiver that verifies every
// delivery with the `standardwebhooks` package. Time that matters is an injected clock: no sleeps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Approval, MemoryStore, isLeashError } from "../../src/index.js";
import { startNotifier, webhookSecrets } from "../../src/worker/index.js";
import { runHref } from "../../src/inbox/html.js";
import { newSecret, startReceiver, testClock, until, writeAgent } from "./notify-helpers.js";

const BASE = "https://inbox.example.com/leash";

test("delivers a request's event signed as Standard Webhooks, its url the run's inbox page and not a link that answers", async (t) => {
  const secret = newSecret();
  const receiver = await startReceiver([secret], () => 200);
  t.after(() => receiver.close());
  const store = new MemoryStore();
  const paused = await writeAgent(store).run("write a note", { runId: "run:1@x" });
  assert.equal(paused.status, "awaiting_approval");
  const notifier = await startNotifier(store, { url: receiver.url, secrets: webhookSecrets(secret), base: `${BASE}/` });
  t.after(() => notifier.stop());
  await notifier.drain();
  assert.equal(receiver.deliveries.length, 1);
  const [delivery] = receiver.deliveries;
  assert.deepEqual(delivery?.verified, [true], "the standardwebhooks package verifies it");
  const body = JSON.parse(delivery?.body ?? "") as { type: string; timestamp: string; data: Record<string, unknown> };
  assert.deepEqual(Object.keys(body), ["type", "timestamp", "data"]);
  assert.equal(body.type, "approval_requested");
  assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
  assert.equal(body.data.runId, "run:1@x");
  assert.equal((body.data.request as { digest: string }).digest, paused.pending?.digest);
  assert.equal(body.data.url, `${BASE}/runs/run%3A1%40x`);
  assert.equal(body.data.url, `${BASE}${runHref("run:1@x")}`, "the inbox's own address of the run's page");
  assert.doesNotMatch(String(body.data.url), /answer|token|link/i, "the page, never a link that answers");
  const { events } = await store.notifications({ status: "delivered" });
  assert.equal(events[0]?.id, delivery?.id, "webhook-id is the event's id");
});

test("retries after a 500 under the same webhook-id, each attempt signed anew with its own timestamp", async (t) => {
  const secret = newSecret();
  const receiver = await startReceiver([secret], (n) => (n === 0 ? 500 : 200));
  t.after(() => receiver.close());
  const store = new MemoryStore();
  await writeAgent(store).run("write a note");
  const clock = testClock();
  const notifier = await startNotifier(store, {
    url: receiver.url,
    secrets: webhookSecrets(secret),
    base: BASE,
    now: clock.now,
  });
  t.after(() => notifier.stop());
  await notifier.drain();
  const [pending] = (await store.notifications({ status: "pending" })).events;
  assert.equal(pending?.attempts, 1);
  assert.equal(pending?.lastError, "HTTP 500");
  assert.equal(Date.parse(pending?.nextAttemptAt ?? "") - clock.now().getTime(), 5_000, "the first retry 5 s later");
  await notifier.drain();
  assert.equal(receiver.deliveries.length, 1, "not due yet: not sent again");
  clock.advance(5_000);
  await notifier.drain();
  assert.equal(receiver.deliveries.length, 2);
  const [first, second] = receiver.deliveries;
  assert.equal(second?.id, first?.id, "the same webhook-id");
  assert.equal((second?.timestamp ?? 0) - (first?.timestamp ?? 0), 5, "a new webhook-timestamp");
  assert.notDeepEqual(second?.signatures, first?.signatures, "a new signature");
  assert.deepEqual([first?.signedBy, second?.signedBy], [[true], [true]]);
  assert.equal(first?.body, second?.body);
  const [delivered] = (await store.notifications({ status: "delivered" })).events;
  assert.equal(delivered?.attempts, 2);
});

test("a receiver that cannot be reached is recorded with why, not only 'fetch failed'", async (t) => {
  // A port that was just free and is closed again: the connection is refused.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const store = new MemoryStore();
  await writeAgent(store).run("write a note");
  const notifier = await startNotifier(store, {
    url: `http://127.0.0.1:${port}/hook`,
    secrets: webhookSecrets(newSecret()),
    base: BASE,
  });
  t.after(() => notifier.stop());
  await notifier.drain();
  const [pending] = (await store.notifications({ status: "pending" })).events;
  assert.equal(pending?.attempts, 1);
  assert.match(pending?.lastError ?? "", /^fetch failed \(ECONNREFUSED\)$/);
});

test("a redirect is a failure and is not followed", async (t) => {
  const secret = newSecret();
  const receiver = await startReceiver([secret], () => ({ redirect: "/elsewhere" }));
  t.after(() => receiver.close());
  const store = new MemoryStore();
  await writeAgent(store).run("write a note");
  const notifier = await startNotifier(store, { url: receiver.url, secrets: webhookSecrets(secret), base: BASE });
  t.after(() => notifier.stop());
  await notifier.drain();
  assert.equal(receiver.deliveries.length, 1);
  assert.deepEqual(receiver.strays, [], "nothing followed the redirect");
  const [pending] = (await store.notifications({ status: "pending" })).events;
  assert.match(pending?.lastError ?? "", /^HTTP 302 \(a redirect: not followed\)$/);
});

test("an attempt that gets no answer in time is retried", async (t) => {
  const secret = newSecret();
  const receiver = await startReceiver([secret], (n) => (n === 0 ? "hang" : 204));
  t.after(() => receiver.close());
  const store = new MemoryStore();
  await writeAgent(store).run("write a note");
  const clock = testClock();
  const notifier = await startNotifier(store, {
    url: receiver.url,
    secrets: webhookSecrets(secret),
    base: BASE,
    now: clock.now,
    timeoutMs: 200,
  });
  t.after(() => notifier.stop());
  await notifier.drain();
  const [pending] = (await store.notifications({ status: "pending" })).events;
  assert.equal(pending?.lastError, "no answer within 200 ms");
  clock.advance(5_000);
  await notifier.drain();
  assert.equal(receiver.deliveries.length, 2);
  assert.equal(receiver.deliveries[1]?.id, receiver.deliveries[0]?.id);
  assert.equal((await store.notifications({ status: "delivered" })).events.length, 1);
});

test("with two secrets, every attempt carries both signatures, and either secret alone verifies it", async (t) => {
  const [oldSecret, newOne] = [newSecret(), newSecret()];
  const receiver = await startReceiver([oldSecret, newOne], () => 200);
  t.after(() => receiver.close());
  const store = new MemoryStore();
  await writeAgent(store).run("write a note");
  const notifier = await startNotifier(store, {
    url: receiver.url,
    secrets: webhookSecrets([oldSecret, newOne]),
    base: BASE,
  });
  t.after(() => notifier.stop());
  await notifier.drain();
  const [delivery] = receiver.deliveries;
  assert.equal(delivery?.signatures.length, 2);
  assert.ok(delivery?.signatures.every((signature) => signature.startsWith("v1,")));
  assert.deepEqual(delivery?.verified, [true, true], "a receiver with either secret verifies it");
});

test("gives up after 24 hours of retries from the first attempt, backing off to an hour apart, then marks it failed", async (t) => {
  const secret = newSecret();
  const receiver = await startReceiver([secret], () => 503);
  t.after(() => receiver.close());
  const store = new MemoryStore();
  await writeAgent(store).run("write a note");
  const clock = testClock();
  const notifier = await startNotifier(store, {
    url: receiver.url,
    secrets: webhookSecrets(secret),
    base: BASE,
    now: clock.now,
  });
  t.after(() => notifier.stop());
  const gaps: number[] = [];
  for (let round = 0; round < 100; round++) {
    await notifier.drain();
    const [pending] = (await store.notifications({ status: "pending" })).events;
    if (pending === undefined) break;
    const gap = Date.parse(pending.nextAttemptAt ?? "") - clock.now().getTime();
    gaps.push(gap);
    clock.advance(gap);
  }
  const [failed] = (await store.notifications({ status: "failed" })).events;
  assert.equal(failed?.status, "failed");
  assert.equal(failed?.nextAttemptAt, null);
  assert.equal(failed?.attempts, receiver.deliveries.length);
  assert.equal(gaps[0], 5_000);
  assert.ok(
    gaps.every((gap) => gap <= 3_600_000),
    "at most an hour apart",
  );
  assert.equal(gaps.at(-1), 3_600_000);
  assert.ok(gaps.reduce((sum, gap) => sum + gap, 0) <= 24 * 3_600_000, "within 24 hours");
  assert.equal(new Set(receiver.deliveries.map((delivery) => delivery.id)).size, 1, "one id throughout");
});

test("a first start skips events older than 24 hours, except the requests of runs still awaiting approval", async (t) => {
  const secret = newSecret();
  const receiver = await startReceiver([secret], () => 200);
  t.after(() => receiver.close());
  const store = new MemoryStore();
  const agent = writeAgent(store);
  const ended = await agent.run("write a note", { runId: "ended" });
  await store.answer(ended.runId, Approval.grant(ended.pending!.digest, "allen"));
  await agent.resume(ended.runId);
  await agent.run("write a note", { runId: "waiting" });
  // A clock 25 hours ahead: every event above is older than a day for this deliverer.
  const clock = testClock(new Date(Date.now() + 25 * 3_600_000));
  const notifier = await startNotifier(store, {
    url: receiver.url,
    secrets: webhookSecrets(secret),
    base: BASE,
    now: clock.now,
  });
  t.after(() => notifier.stop());
  assert.deepEqual(notifier.started, { first: true, skipped: 2 });
  await notifier.drain();
  const sent = receiver.deliveries.map(
    (delivery) => JSON.parse(delivery.body) as { type: string; data: { runId: string } },
  );
  assert.deepEqual(
    sent.map((event) => `${event.type} ${event.data.runId}`),
    ["approval_requested waiting"],
  );
  const skipped = (await store.notifications({ status: "skipped" })).events.map(
    (event) => `${event.type} ${event.runId}`,
  );
  assert.deepEqual(skipped.sort(), ["approval_requested ended", "run_ended ended"]);
});

test("delivery never blocks a run: with the receiver hanging, the run is approved, resumed and completes", async (t) => {
  const secret = newSecret();
  const receiver = await startReceiver([secret], () => "hang");
  t.after(() => receiver.close());
  const store = new MemoryStore();
  const notifier = await startNotifier(store, {
    url: receiver.url,
    secrets: webhookSecrets(secret),
    base: BASE,
    pollMs: 5,
  });
  const agent = writeAgent(store);
  const paused = await agent.run("write a note");
  await until(() => receiver.hanging() > 0, "the receiver holds the request's event");
  await store.answer(paused.runId, Approval.grant(paused.pending!.digest, "allen"));
  const done = await agent.resume(paused.runId);
  assert.equal(done.status, "completed");
  assert.ok(receiver.hanging() > 0, "the run completed while its event's delivery still hung");
  await receiver.close();
  await notifier.stop();
});

test("stop waits for the attempt in flight, and the event is settled before it resolves", async (t) => {
  const secret = newSecret();
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const store = new MemoryStore();
  await writeAgent(store).run("write a note");
  let calls = 0;
  const notifier = await startNotifier(store, {
    url: "http://127.0.0.1:9/hook",
    secrets: webhookSecrets(secret),
    base: BASE,
    pollMs: 5,
    fetch: async () => {
      calls++;
      await released;
      return new Response(null, { status: 200 });
    },
  });
  await until(() => calls > 0, "an attempt is in flight");
  const stopped = notifier.stop();
  release();
  await stopped;
  assert.equal((await store.notifications({ status: "delivered" })).events.length, 1);
  t.diagnostic(`attempts: ${calls}`);
});

test("refuses a store that keeps no outbox, a URL that is not http(s), and unknown options", async () => {
  const secrets = webhookSecrets(newSecret());
  const noOutbox = { load: () => Promise.resolve(null) };
  await assert.rejects(startNotifier(noOutbox, { url: "http://127.0.0.1:1/", secrets, base: BASE }), (error) => {
    assert.ok(isLeashError(error, "invalid_option"));
    assert.match(error.message, /keeps no outbox/);
    return true;
  });
  const store = new MemoryStore();
  for (const url of ["ftp://example.com/hook", "not a url", "http://user:pass@example.com/hook"])
    await assert.rejects(startNotifier(store, { url, secrets, base: BASE }), { code: "invalid_option" });
  await assert.rejects(startNotifier(store, { url: "http://127.0.0.1:1/", secrets, base: "javascript:alert(1)" }), {
    code: "invalid_option",
  });
  await assert.rejects(
    startNotifier(store, { url: "http://127.0.0.1:1/", secrets, base: BASE, timeoutMS: 5 } as never),
    /Unknown option `timeoutMS`/,
  );
  await assert.rejects(
    startNotifier(store, { url: "http://127.0.0.1:1/", secrets: newSecret() as never, base: BASE }),
    { code: "invalid_option" },
  );
});
