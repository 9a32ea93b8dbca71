import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Approval } from "../../src/index.js";
import { freshSchemaName, sql, withPostgres } from "../postgres/database.js";
import { bin, errorLine, leash, requireBuiltBin, root } from "./cli-helpers.js";
import { eachStore, openCliStore } from "./cli-stores.js";
import type { CliStore } from "./cli-stores.js";
import { payAgent } from "./pay-agent.js";

const anyStoreAgent = join(root, "test", "fixtures", "cli", "any-store-agent.ts");

function payments(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
}

/**
 * Runs every command that works on a store (runs, show, approve, deny, resume, worker, verify,
 * approvers) on the target's store, named by `args` on the command line and `LEASH_DB` in the
 * environment.
 */
async function everyCommandWorks(target: CliStore, args: string[], leashDb: string): Promise<void> {
  const { cwd } = target;
  const agent = payAgent(target.store);
  const first = await agent.run("pay the first invoice");
  const second = await agent.run("pay the second invoice");
  const third = await agent.run("pay the third invoice");
  const effects = join(cwd, "effects.txt");
  const env = { LEASH_TEST_EFFECTS: effects, DATABASE_URL: "", LEASH_DB: leashDb };

  const inbox = leash(["runs", "--status", "awaiting_approval", ...args, "--json"], { cwd, env });
  assert.equal(inbox.status, 0, inbox.stderr);
  assert.deepEqual(
    (JSON.parse(inbox.stdout) as { runs: { runId: string }[] }).runs.map((run) => run.runId),
    [first.runId, second.runId, third.runId],
  );
  const show = leash(["show", first.runId, ...args], { cwd, env });
  assert.equal(show.status, 0, show.stderr);
  assert.match(show.stdout, /Waiting for a person:/);

  assert.equal(leash(["approve", first.runId, "--as", "noor", ...args], { cwd, env }).status, 0);
  assert.equal(leash(["deny", second.runId, "--as", "noor", ...args], { cwd, env }).status, 0);
  assert.equal(leash(["approve", third.runId, "--as", "noor", ...args], { cwd, env }).status, 0);

  // The agent module is TypeScript, and the bin runs without a loader flag: leash registers tsx for it.
  const resume = leash(["resume", first.runId, "--agent", anyStoreAgent, ...args, "--json"], { cwd, env });
  assert.equal(resume.status, 0, resume.stderr);
  assert.equal((JSON.parse(resume.stdout) as { state: { status: string } }).state.status, "completed");
  assert.deepEqual(payments(effects), ["10"]);

  const worker = leash(["worker", "--agent", anyStoreAgent, ...args, "--once", "--json"], { cwd, env });
  assert.equal(worker.status, 0, worker.stderr);
  const pass = JSON.parse(worker.stdout) as { resumed: number; runs: { runId: string }[] };
  assert.deepEqual(pass.runs.map((run) => run.runId).sort(), [second.runId, third.runId].sort());
  assert.deepEqual(payments(effects), ["10", "10"], "the denied payment never ran");

  const verify = leash(["verify", ...args], { cwd, env });
  assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, /Every chain holds/);

  const added = leash(["approvers", "add", "noor", ...args, "--json"], { cwd, env });
  assert.equal(added.status, 0, added.stderr);
  const listed = leash(["approvers", "list", ...args, "--json"], { cwd, env });
  assert.equal(listed.status, 0, listed.stderr);
  assert.deepEqual(
    (JSON.parse(listed.stdout) as { approvers: { name: string }[] }).approvers.map((approver) => approver.name),
    ["noor"],
  );
  assert.equal(leash(["approvers", "remove", "noor", ...args], { cwd, env }).status, 0);
  const gaveUp = leash(["runs", "--status", "gave_up", ...args, "--json"], { cwd, env });
  assert.equal(gaveUp.status, 0, gaveUp.stderr);
  assert.deepEqual((JSON.parse(gaveUp.stdout) as { runs: unknown[] }).runs, []);
  assert.ok(!existsSync(join(cwd, "leash.db")), "no default SQLite file was made");
}

eachStore("every command works on the store --db names", async (_t, target) => {
  await everyCommandWorks(target, target.args, "");
});

test("without --db, LEASH_DB names the store, then ./leash.db", async (t) => {
  const target = openCliStore(t, "sqlite");
  const paused = await payAgent(target.store).run("pay the invoice");
  const file = target.args[1] as string;
  const named = leash(["runs", "--json"], { cwd: target.cwd, env: { LEASH_DB: file } });
  assert.equal(named.status, 0, named.stderr);
  assert.deepEqual(
    (JSON.parse(named.stdout) as { runs: { runId: string }[] }).runs.map((run) => run.runId),
    [paused.runId],
  );
  const fallback = leash(["runs"], { cwd: target.cwd, env: { LEASH_DB: "" } });
  assert.equal(fallback.status, 2);
  const error = errorLine(fallback);
  assert.equal(error.code, "db_not_found");
  assert.match(error.message, /\.\/leash\.db/);
});

test("--schema is refused with a SQLite file, which has no schemas", async (t) => {
  const target = openCliStore(t, "sqlite");
  const result = leash(["runs", ...target.args, "--schema", "billing"], { cwd: target.cwd });
  assert.equal(result.status, 2);
  assert.equal(errorLine(result).code, "invalid_option");
});

test("under --json every error is one JSON object on stderr, with the same exit status", async (t) => {
  const target = openCliStore(t, "sqlite");
  const usage = leash(["runs", "--status", "bogus", "--json"], { cwd: target.cwd });
  assert.equal(usage.status, 2);
  assert.equal(usage.stdout, "");
  assert.equal((JSON.parse(usage.stderr) as { error: { code: string } }).error.code, "usage");

  const missing = leash(["show", "nope", "--db", "missing.db", "--json"], { cwd: target.cwd });
  assert.equal(missing.status, 2);
  const parsed = JSON.parse(missing.stderr) as { error: { code: string; message: string } };
  assert.deepEqual(Object.keys(parsed), ["error"]);
  assert.equal(parsed.error.code, "db_not_found");
  assert.match(parsed.error.message, /missing\.db/);
  assert.equal(missing.stderr.trimEnd().split("\n").length, 1);
});

withPostgres("leash on PostgreSQL", (url) => {
  test("every command works on PostgreSQL when LEASH_DB is the URL and --schema names the schema", async (t) => {
    const target = openCliStore(t, "postgres");
    assert.equal(target.args[1], url);
    await everyCommandWorks(target, target.args.slice(2), url);
  });

  test("a PostgreSQL schema without leash's tables is refused, and nothing is created in it", async () => {
    const schema = freshSchemaName("leash_cli_absent");
    const runs = leash(["runs", "--db", url, "--schema", schema], { cwd: root });
    assert.equal(runs.status, 2);
    assert.equal(errorLine(runs).code, "db_not_found");
    const found = await sql(url, "SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [schema]);
    assert.equal(found.rowCount, 0);
  });

  test("a PostgreSQL URL without the pg driver installed is a clear error", () => {
    requireBuiltBin();
    const hidePg = pathToFileURL(join(root, "test", "fixtures", "hide-pg.mjs")).href;
    const result = spawnSync(process.execPath, ["--import", hidePg, bin, "runs", "--db", url], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, LEASH_DEBUG: "" },
    });
    assert.equal(result.status, 2, result.stderr);
    const error = errorLine({ status: result.status, stdout: result.stdout, stderr: result.stderr });
    assert.equal(error.code, "pg_not_installed");
    assert.match(error.message, /npm install pg/);
  });

  test("an answer given from the command line reaches the run on PostgreSQL as store.answer records it", async (t) => {
    const target = openCliStore(t, "postgres");
    const paused = await payAgent(target.store).run("pay the invoice");
    const denied = leash(["deny", paused.runId, "--as", "noor", "--note", "no", ...target.args], { cwd: target.cwd });
    assert.equal(denied.status, 0, denied.stderr);
    const state = await target.store.load(paused.runId);
    assert.deepEqual(
      state!.answers.map((answer) => Approval.fromJSON(answer).granted),
      [false],
    );
  });
});
