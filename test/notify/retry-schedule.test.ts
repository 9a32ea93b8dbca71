// The retry schedule, on an injected clock: no sleeps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { retryAt } from "../../src/notify/retry-schedule.js";

const HOUR = 3_600_000;

test("the first retry comes within 10 s, then each gap doubles up to an hour", () => {
  const createdAt = new Date("2026-03-01T00:00:00.000Z");
  let now = createdAt;
  const gaps: number[] = [];
  for (let attempts = 1; ; attempts++) {
    const next = retryAt({ attempts, now });
    if (next === null) break;
    gaps.push(next.getTime() - now.getTime());
    now = next;
  }
  assert.ok((gaps[0] ?? Infinity) <= 10_000);
  assert.deepEqual(gaps.slice(0, 5), [5_000, 10_000, 20_000, 40_000, 80_000]);
  for (let index = 1; index < gaps.length; index++)
    assert.ok(gaps[index] === Math.min(HOUR, 2 * (gaps[index - 1] ?? 0)), `gap ${index}`);
  assert.equal(Math.max(...gaps), HOUR);
  assert.ok(now.getTime() - createdAt.getTime() <= 24 * HOUR, "every retry within 24 hours of the first attempt");
  assert.ok(now.getTime() - createdAt.getTime() > 23 * HOUR, "retried until the day is nearly out");
});

test("no retry is scheduled past 24 hours of retries: it is failed, however late the first attempt came", () => {
  const createdAt = new Date("2026-03-01T00:00:00.000Z");
  // An event made 30 hours before its first attempt (a run still waiting when a deliverer first starts).
  const late = new Date(createdAt.getTime() + 30 * HOUR);
  assert.deepEqual(retryAt({ attempts: 1, now: late }), new Date(late.getTime() + 5_000));
  let attempts = 1;
  while (retryAt({ attempts, now: late }) !== null) attempts++;
  assert.ok(attempts > 30, `retried ${attempts} times before it is failed`);
  assert.equal(retryAt({ attempts: 500, now: createdAt }), null, "a huge attempt count is failed");
  assert.deepEqual(
    retryAt({ attempts: 20, now: createdAt }),
    new Date(createdAt.getTime() + HOUR),
    "past the doubling, an hour apart",
  );
});
