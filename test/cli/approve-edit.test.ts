import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Agent, Decision, Policy, stateAgreesWithTrail, tool } from "../../src/index.js";
import type { Json } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { errorLine, leash, tempFolder } from "./cli-helpers.js";

/** A payer on a SQLite file whose payments need two people; it proposes to pay 60. */
function quorumPayer(store: SqliteStore, paid: Json[]): Agent {
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
    store,
    policy: new Policy({ allowEffects: ["read", "write"], quorum: () => 2 }),
    planner: (state) => (state.steps.length === 0 ? Decision.act("pay", { amount: 60 }) : Decision.finish("done")),
  });
}

test("leash approve --args records an edit, show says k of n approvals, a bad edit stores nothing, and the resume runs the edit once", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const db = join(folder.path, "runs.db");
  const paid: Json[] = [];
  let store = new SqliteStore(db);
  const paused = await quorumPayer(store, paid).run("pay", { runId: "edit-me" });
  await store.close();
  const digest = paused.pending!.digest;
  const cwd = folder.path;

  const before = leash(["show", "edit-me", "--db", db], { cwd });
  assert.equal(before.status, 0, before.stderr);
  assert.match(before.stdout, /0 of 2 approvals/);

  const approved = leash(["approve", "edit-me", "--as", "noor", "--args", '{"amount":40}', "--db", db, "--json"], {
    cwd,
  });
  assert.equal(approved.status, 0, approved.stderr);
  const answer = (JSON.parse(approved.stdout) as { answer: { args?: Json } }).answer;
  assert.deepEqual(answer.args, { amount: 40 });

  store = new SqliteStore(db);
  const trail = (await store.read("edit-me")).length;
  await store.close();
  for (const bad of ["{nope", "[1,2]", "40"]) {
    const refused = leash(["approve", "edit-me", "--as", "sam", "--args", bad, "--db", db], { cwd });
    assert.equal(refused.status, 2, bad);
    assert.equal(errorLine(refused).code, "invalid_arguments", bad);
  }
  // Edits the tool's schema refuses: a string amount, a missing one.
  for (const bad of ['{"amount":"forty"}', "{}"]) {
    const refused = leash(["approve", "edit-me", "--as", "sam", "--args", bad, "--db", db], { cwd });
    assert.notEqual(refused.status, 0, bad);
    const line = errorLine(refused);
    assert.equal(line.code, "invalid_arguments", bad);
    assert.match(String(line.message), /schema/, bad);
  }
  const denyEdit = leash(["deny", "edit-me", "--as", "sam", "--args", '{"amount":1}', "--db", db], { cwd });
  assert.notEqual(denyEdit.status, 0, "a denial takes no --args");
  store = new SqliteStore(db);
  assert.equal((await store.read("edit-me")).length, trail, "a refused edit records nothing");
  assert.equal((await store.load("edit-me"))?.answers.length, 1);
  await store.close();

  const listed = leash(["runs", "--status", "awaiting_approval", "--db", db], { cwd });
  assert.match(listed.stdout, /edit-me\s+awaiting_approval \(1 of 2 approvals\)/);
  const rows = JSON.parse(leash(["runs", "--db", db, "--json"], { cwd }).stdout) as { runs: { approvals: string }[] };
  assert.equal(rows.runs[0]?.approvals, "1 of 2 approvals");
  const shown = leash(["show", "edit-me", "--db", db], { cwd });
  assert.match(shown.stdout, /1 of 2 approvals/);
  assert.match(shown.stdout, /with the arguments edited to \{"amount":40\}/);
  const human = leash(
    ["approve", "edit-me", "--as", "sam", "--args", '{"amount":40}', "--digest", digest, "--db", db],
    {
      cwd,
    },
  );
  assert.equal(human.status, 0, human.stderr);
  assert.match(human.stdout, /With the arguments edited to, in full:/);
  assert.match(human.stdout, /2 of 2 approvals recorded so far/);

  store = new SqliteStore(db);
  t.after(() => store.close());
  const done = await quorumPayer(store, paid).resume("edit-me");
  assert.equal(done.status, "completed");
  assert.deepEqual(paid, [{ amount: 40 }]);
  assert.deepEqual(done.steps[0]?.edited, { args: { amount: 40 }, by: "sam" });
  assert.deepEqual(stateAgreesWithTrail((await store.load("edit-me"))!, await store.read("edit-me")).problems, []);
  const after = leash(["show", "edit-me", "--db", db], { cwd });
  assert.match(after.stdout, /edited by "sam" when approving; ran with \{"amount":40\}/);
});
