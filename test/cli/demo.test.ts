import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { errorLine, leash, tempFolder } from "./cli-helpers.js";

test("leash demo runs the workshop end to end and leaves a database that verifies", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const demo = leash(["demo"], { cwd: folder.path });
  assert.equal(demo.status, 0, demo.stderr);
  assert.equal(demo.stderr, "");
  assert.ok(existsSync(join(folder.path, "leash-demo.db")), "the demo's default file is ./leash-demo.db");
  for (const line of [
    "Shop rules stopped NoteRepair: A note does not blame the customer.",
    "Shop rules kept what WhereIsTheKey answered from the model: Where a key is kept stays in the workshop.",
    "the run pauses (awaiting_approval)",
    "--as noor",
    "the run is completed",
    "The model was never told where the key is kept.",
    "leash verify leash-demo.db",
  ]) {
    assert.ok(demo.stdout.includes(line), `the demo says ${JSON.stringify(line)}`);
  }
  const runId = /leash show (\S+) --db leash-demo\.db/.exec(demo.stdout)?.[1];
  assert.ok(runId !== undefined, "the demo ends with the exact `leash show` command");

  const verify = leash(["verify", "leash-demo.db"], { cwd: folder.path });
  assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, /Every chain holds, and holds its head\./);

  const show = leash(["show", runId, "--db", "leash-demo.db", "--json"], { cwd: folder.path });
  assert.equal(show.status, 0, show.stderr);
  const shown = JSON.parse(show.stdout) as {
    state: { status: string; steps: { outcome: string }[] };
    trace: { said: string[]; ran: string[] };
    audit: { problems: unknown[]; holdsHead: boolean; headIsLast: boolean };
  };
  assert.equal(shown.state.status, "completed");
  assert.deepEqual(
    shown.state.steps.map((step) => step.outcome),
    ["blocked", "withheld", "executed", "finished"],
  );
  assert.deepEqual(shown.trace.ran, ["WhereIsTheKey", "NoteRepair"]);
  assert.equal(shown.trace.said.length, 2);
  assert.deepEqual(shown.audit.problems, []);
  assert.equal(shown.audit.headIsLast, true);
});

test("leash demo starts its default file afresh, and never writes into an existing --db file", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  for (let time = 0; time < 2; time++) assert.equal(leash(["demo"], { cwd: folder.path }).status, 0);
  const fresh = JSON.parse(leash(["runs", "--db", "leash-demo.db", "--json"], { cwd: folder.path }).stdout) as {
    runs: unknown[];
  };
  assert.equal(fresh.runs.length, 1, "a second `leash demo` replaces ./leash-demo.db");

  assert.equal(leash(["demo", "--db", "mine.db", "--json"], { cwd: folder.path }).status, 0);
  const refused = leash(["demo", "--db", "mine.db"], { cwd: folder.path });
  assert.equal(refused.status, 2);
  const error = errorLine(refused);
  assert.equal(error.code, "db_exists");
  assert.match(error.message, /--force/);
  const kept = JSON.parse(leash(["runs", "--db", "mine.db", "--json"], { cwd: folder.path }).stdout) as {
    runs: unknown[];
  };
  assert.equal(kept.runs.length, 1, "the demo added nothing to the existing store");

  assert.equal(leash(["demo", "--db", "mine.db", "--force", "--json"], { cwd: folder.path }).status, 0);
  const replaced = JSON.parse(leash(["runs", "--db", "mine.db", "--json"], { cwd: folder.path }).stdout) as {
    runs: unknown[];
  };
  assert.equal(replaced.runs.length, 1, "--force replaces the file, it does not add to it");
});

test("leash demo ignores LEASH_DB, which names a real store", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const demo = leash(["demo", "--json"], { cwd: folder.path, env: { LEASH_DB: join(folder.path, "real.db") } });
  assert.equal(demo.status, 0, demo.stderr);
  assert.ok(!existsSync(join(folder.path, "real.db")));
});

test("leash demo --json prints one JSON document that tells the run", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const demo = leash(["demo", "--db", "demo.db", "--json"], { cwd: folder.path });
  assert.equal(demo.status, 0, demo.stderr);
  const result = JSON.parse(demo.stdout) as Record<string, unknown> & {
    trail: { problems: unknown[]; headIsLast: boolean };
  };
  assert.equal(result.status, "completed");
  assert.equal(result.note, "Worn pads.");
  assert.deepEqual(result.answer, { hours: 1, summary: "Pads." });
  assert.equal(result.modelToldWhereTheKeyIs, false);
  assert.deepEqual(result.trail.problems, []);
  assert.equal(result.trail.headIsLast, true);
});
