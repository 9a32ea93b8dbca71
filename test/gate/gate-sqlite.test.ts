// The gate suite on SqliteStore, a real file; and a settled step edited in the file behind the
// store's back makes a later approval stale.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Approval, stateAgreesWithTrail } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { paymentGate } from "./gate-fixtures.js";
import { gateSuite } from "./gate-suite.js";

function freshFile(): { file: string; remove: () => void } {
  const folder = mkdtempSync(join(tmpdir(), "leash-gate-"));
  return { file: join(folder, "runs.db"), remove: () => rmSync(folder, { recursive: true, force: true }) };
}

gateSuite(() => {
  const { file, remove } = freshFile();
  const store = new SqliteStore(file);
  return Promise.resolve({
    store,
    cleanup: async () => {
      await store.close();
      remove();
    },
  });
});

test("a settled earlier step edited in the file after a request makes its approval stale", async () => {
  const { file, remove } = freshFile();
  const store = new SqliteStore(file);
  try {
    const { gate, ran } = paymentGate(store);
    const session = await gate.session("chat-raw");
    await session.call("r1", "lookup", { topic: "a" });
    const asked = await session.call("p1", "pay", { amount: 10 });
    if (asked.status !== "awaiting_approval") assert.fail("expected a request");
    const raw = new Database(file);
    try {
      const row = raw.prepare("SELECT step FROM steps WHERE run_id = ? AND step_index = 0").get("chat-raw") as {
        step: string;
      };
      const step = JSON.parse(row.step) as { result: unknown };
      step.result = "a page someone else wrote";
      raw
        .prepare("UPDATE steps SET step = ? WHERE run_id = ? AND step_index = 0")
        .run(JSON.stringify(step), "chat-raw");
    } finally {
      raw.close();
    }
    await store.answer("chat-raw", Approval.grant(asked.request.digest, "noor"));
    const stale = await session.call("p1", "pay", { amount: 10 });
    assert.equal(stale.status === "refused" && stale.outcome, "approval_stale");
    assert.equal(ran.pay, undefined);
  } finally {
    await store.close();
    remove();
  }
});

test("an edited approval of a gate call runs the edited call once, and its answer says who edited it and to what", async () => {
  const { file, remove } = freshFile();
  const store = new SqliteStore(file);
  try {
    const { gate, ran } = paymentGate(store);
    const session = await gate.session("chat-edit");
    const asked = await session.call("p1", "pay", { amount: 90 });
    if (asked.status !== "awaiting_approval") assert.fail("expected a request");
    await store.answer("chat-edit", Approval.edit(asked.request.digest, "noor", { amount: 30 }));
    const done = await session.call("p1", "pay", { amount: 90 });
    assert.deepEqual(done, { status: "executed", result: { paid: 30 }, edited: { args: { amount: 30 }, by: "noor" } });
    assert.equal(ran.pay, 1);
    // Asked again with the call id, the session gives the same answer and runs nothing.
    assert.deepEqual(await session.call("p1", "pay", { amount: 90 }), done);
    assert.equal(ran.pay, 1);
    const state = await store.load("chat-edit");
    assert.deepEqual(stateAgreesWithTrail(state!, await store.read("chat-edit")).problems, []);
  } finally {
    await store.close();
    remove();
  }
});
