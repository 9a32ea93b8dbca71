// A gate's session across real processes on one SQLite file: two processes racing the same call id
// run its tool once, and a process killed with SIGKILL in the middle of a call leaves it to the next
// process, which starts an idempotent tool again with the same key and refuses any other as
// interrupted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Gate, tool } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { killHard, startFixture } from "../stores/fixture-process.js";
import type { FixtureProcess } from "../stores/fixture-process.js";
import { assertSessionAgrees } from "./gate-suite.js";

/** The child of these tests (test/gate/gate-child.ts), started through the fixtures' starter. */
const CHILD = "../gate/gate-child.ts";

function folder(): { file: string; effects: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "leash-gate-processes-"));
  return {
    file: join(dir, "runs.db"),
    effects: join(dir, "effects.txt"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Creates the session in this process, so that the children only open it. */
async function createSession(file: string, runId: string): Promise<void> {
  const store = new SqliteStore(file);
  await new Gate({ tools: [tool({ name: "send", execute: () => null })], store }).session(runId);
  await store.close();
}

function effectsOf(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
}

async function answerOf(child: FixtureProcess): Promise<unknown> {
  const line = await child.waitFor((text) => text.startsWith("answer "), { timeoutMs: 90_000 });
  return JSON.parse(line.slice("answer ".length)) as unknown;
}

async function checkTrail(file: string, runId: string): Promise<void> {
  const store = new SqliteStore(file);
  try {
    await assertSessionAgrees(store, runId);
  } finally {
    await store.close();
  }
}

test("two processes racing one call id on the same revision run the tool once and give the same answer", async () => {
  const { file, effects, remove } = folder();
  try {
    await createSession(file, "race");
    const racers = [0, 1].map(() => startFixture(CHILD, [file, effects, "race", "c1", "race", "plain"]));
    await Promise.all(racers.map((racer) => racer.waitFor((line) => line === "ready")));
    for (const racer of racers) racer.child.stdin.write("go\n");
    const answers = await Promise.all(racers.map(answerOf));
    assert.deepEqual(answers, [
      { status: "executed", result: "sent to mia" },
      { status: "executed", result: "sent to mia" },
    ]);
    assert.equal(effectsOf(effects).length, 1);
    await Promise.all(racers.map((racer) => racer.exited));
    await checkTrail(file, "race");
  } finally {
    remove();
  }
});

test("after a SIGKILL mid-call, the next process starts an idempotent tool again once, with the same key", async () => {
  const { file, effects, remove } = folder();
  try {
    await createSession(file, "crash-idempotent");
    const first = startFixture(CHILD, [file, effects, "crash-idempotent", "c1", "block", "idempotent"]);
    const started = await first.waitFor((line) => line.startsWith("started "));
    await killHard(first);
    const second = startFixture(CHILD, [file, effects, "crash-idempotent", "c1", "run", "idempotent"]);
    assert.deepEqual(await answerOf(second), { status: "executed", result: "sent to mia" });
    await second.exited;
    const key = started.slice("started ".length);
    assert.deepEqual(effectsOf(effects), [key, key]);
    const third = startFixture(CHILD, [file, effects, "crash-idempotent", "c1", "run", "idempotent"]);
    assert.deepEqual(await answerOf(third), { status: "executed", result: "sent to mia" });
    await third.exited;
    assert.equal(effectsOf(effects).length, 2);
    const store = new SqliteStore(file);
    try {
      const state = await store.load("crash-idempotent");
      assert.equal(state?.steps[0]?.starts, 2);
      assert.equal(state?.toolCalls, 1);
    } finally {
      await store.close();
    }
    await checkTrail(file, "crash-idempotent");
  } finally {
    remove();
  }
});

test("after a SIGKILL mid-call, a tool that is not idempotent is never started again: the call is interrupted", async () => {
  const { file, effects, remove } = folder();
  try {
    await createSession(file, "crash-plain");
    const first = startFixture(CHILD, [file, effects, "crash-plain", "c1", "block", "plain"]);
    await first.waitFor((line) => line.startsWith("started "));
    await killHard(first);
    const second = startFixture(CHILD, [file, effects, "crash-plain", "c1", "run", "plain"]);
    const answer = (await answerOf(second)) as { status: string; outcome?: string };
    assert.equal(answer.status, "refused");
    assert.equal(answer.outcome, "interrupted");
    await second.exited;
    assert.equal(effectsOf(effects).length, 1);
    await checkTrail(file, "crash-plain");
  } finally {
    remove();
  }
});
