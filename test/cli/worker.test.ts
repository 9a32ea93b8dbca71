import { test } from "node:test";
import type { TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Approval } from "../../src/index.js";
import { readWorkerEffects, workerAgent } from "../fixtures/postgres/worker-agent.js";
import { SCHEMA_VARIABLE } from "../fixtures/stores/open-store.js";
import { freshStore, withPostgres } from "../postgres/database.js";
import { bin, errorLine, leash, requireBuiltBin, root, runTypeScript, tempFolder, tsxLoader } from "./cli-helpers.js";

const agentModule = join(root, "test", "fixtures", "cli", "paused-agent.ts");
const postgresAgent = join(root, "test", "fixtures", "cli", "postgres-agent.ts");

/** The fixture app's folder and database, removed after the test. */
interface App {
  cwd: string;
  db: string;
}

function freshApp(t: TestContext): App {
  const folder = tempFolder();
  t.after(folder.remove);
  return { cwd: folder.path, db: join(folder.path, "app.db") };
}

/** Starts a run of the fixture app that pauses before its write; returns its id. */
function pausedRun({ cwd, db }: App): string {
  const started = runTypeScript(agentModule, { cwd, env: { LEASH_DB: db } });
  assert.equal(started.status, 0, started.stderr);
  return started.stdout.trim();
}

/** Records Noor's answer to a paused run, as a person does from the command line. */
function answer({ cwd, db }: App, verb: "approve" | "deny", runId: string): void {
  const answered = leash([verb, runId, "--as", "noor", "--db", db], { cwd });
  assert.equal(answered.status, 0, answered.stderr);
}

function saved(db: string): string[] {
  return existsSync(`${db}.saved`)
    ? readFileSync(`${db}.saved`, "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
}

function status({ cwd, db }: App, runId: string): string {
  const shown = leash(["show", runId, "--db", db, "--json"], { cwd });
  assert.equal(shown.status, 0, shown.stderr);
  return (JSON.parse(shown.stdout) as { state: { status: string } }).state.status;
}

/** A long-running `leash worker` child: its output so far, a wait for a line, and its exit. */
function startWorker(
  args: string[],
  cwd: string,
): {
  output: () => string;
  waitFor: (pattern: RegExp) => Promise<void>;
  signal: (name: NodeJS.Signals) => void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
} {
  requireBuiltBin();
  const child = spawn(process.execPath, ["--import", `file://${tsxLoader}`, bin, "worker", ...args], {
    cwd,
    env: { ...process.env, LEASH_DEBUG: "" },
  });
  let stdout = "";
  let stderr = "";
  const waiters: (() => void)[] = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal, stderr }));
  });
  const waitFor = async (pattern: RegExp): Promise<void> => {
    const deadline = Date.now() + 30_000;
    while (!pattern.test(stdout)) {
      if (child.exitCode !== null)
        throw new Error(`The worker exited (${child.exitCode}) before printing ${pattern}:\n${stdout}\n${stderr}`);
      if (Date.now() > deadline)
        throw new Error(`The worker did not print ${pattern} within 30 s:\n${stdout}\n${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  return { output: () => stdout, waitFor, signal: (name) => void child.kill(name), exited };
}

test("worker --once resumes an approved run once, and a second pass resumes nothing", (t) => {
  const app = freshApp(t);
  const runId = pausedRun(app);
  const waiting = pausedRun(app);
  answer(app, "approve", runId);

  const first = leash(["worker", "--agent", agentModule, "--db", app.db, "--once"], { cwd: app.cwd, tsx: true });
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stdout, new RegExp(`Resumed run ${runId}: completed\\.`));
  assert.match(first.stdout, /One pass: resumed 1 run\./);
  assert.doesNotMatch(first.stdout, new RegExp(waiting), "a run without an answer is left waiting");
  assert.equal(status(app, runId), "completed");
  assert.equal(status(app, waiting), "awaiting_approval");
  assert.deepEqual(saved(app.db), ["the report"], "the approved write ran once");

  const second = leash(["worker", "--agent", agentModule, "--db", app.db, "--once", "--json"], {
    cwd: app.cwd,
    tsx: true,
  });
  assert.equal(second.status, 0, second.stderr);
  assert.deepEqual(JSON.parse(second.stdout), { resumed: 0, runs: [] });
  assert.deepEqual(saved(app.db), ["the report"], "a second pass runs nothing again");
  assert.equal(leash(["verify", "--db", app.db], { cwd: app.cwd }).status, 0);
});

test("worker --once --json lists the runs it resumed with their final status", (t) => {
  const app = freshApp(t);
  const approved = pausedRun(app);
  const denied = pausedRun(app);
  answer(app, "approve", approved);
  answer(app, "deny", denied);

  const pass = leash(["worker", "--agent", agentModule, "--db", app.db, "--once", "--json"], {
    cwd: app.cwd,
    tsx: true,
  });
  assert.equal(pass.status, 0, pass.stderr);
  const report = JSON.parse(pass.stdout) as { resumed: number; runs: { runId: string; status: string }[] };
  assert.equal(report.resumed, 2);
  const byRun = (a: { runId: string }, b: { runId: string }): number => a.runId.localeCompare(b.runId);
  assert.deepEqual(
    [...report.runs].sort(byRun),
    [
      { runId: approved, status: "completed" },
      { runId: denied, status: "completed" },
    ].sort(byRun),
  );
  assert.deepEqual(saved(app.db), ["the report"], "only the approved write ran");
});

test("a running worker resumes an approved run, and SIGTERM stops it cleanly with exit 0", async (t) => {
  const app = freshApp(t);
  const runId = pausedRun(app);
  answer(app, "approve", runId);

  // Ten minutes between passes: the worker resumes the run in its first pass, then sleeps, and only a
  // SIGTERM that cuts the sleep short lets it exit within the minute allowed below (or the test's
  // timeout), however loaded the machine.
  const pollMs = 600_000;
  const worker = startWorker(["--agent", agentModule, "--db", app.db, "--poll-ms", String(pollMs)], app.cwd);
  await worker.waitFor(/Worker started on /);
  await worker.waitFor(new RegExp(`Resumed run ${runId}: completed\\.`));
  const sent = Date.now();
  worker.signal("SIGTERM");
  const exit = await worker.exited;
  assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, exit.stderr);
  assert.ok(Date.now() - sent < pollMs / 10, "the signal cuts the sleep between passes short");
  assert.match(worker.output(), /Worker stopped: resumed 1 run\./);
  assert.match(exit.stderr, /Stopping on SIGTERM/);
  assert.deepEqual(saved(app.db), ["the report"]);
  assert.equal(status(app, runId), "completed");
});

test("a running worker with --json prints one JSON document per line and stops on SIGTERM", async (t) => {
  const app = freshApp(t);
  pausedRun(app);

  const worker = startWorker(["--agent", agentModule, "--db", app.db, "--json"], app.cwd);
  await worker.waitFor(/"event":"started"/);
  worker.signal("SIGTERM");
  const exit = await worker.exited;
  assert.equal(exit.code, 0, exit.stderr);
  const events = worker
    .output()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as unknown);
  assert.deepEqual(events, [
    { event: "started", pollMs: 1000 },
    { event: "stopped", resumed: 0 },
  ]);
});

test("worker refuses a module without an agent or without its store, a missing database and a bad --poll-ms", (t) => {
  const app = freshApp(t);
  pausedRun(app);
  const fixture = (name: string): string => join(root, "test", "fixtures", "cli", name);

  const noAgent = leash(["worker", "--agent", fixture("no-agent.ts"), "--db", app.db, "--once"], {
    cwd: app.cwd,
    tsx: true,
  });
  assert.equal(noAgent.status, 2);
  assert.equal(errorLine(noAgent).code, "invalid_agent_module");

  const noStore = leash(["worker", "--agent", fixture("agent-without-store.ts"), "--db", app.db, "--once"], {
    cwd: app.cwd,
    tsx: true,
  });
  assert.equal(noStore.status, 2);
  const refused = errorLine(noStore);
  assert.equal(refused.code, "invalid_agent_module");
  assert.match(refused.message, /exports no `store`/);

  const missingDb = leash(["worker", "--agent", agentModule, "--db", "missing.db", "--once"], {
    cwd: app.cwd,
    tsx: true,
  });
  assert.equal(missingDb.status, 2);
  assert.equal(errorLine(missingDb).code, "db_not_found");
  assert.ok(!existsSync(join(app.cwd, "missing.db")), "no database is created");

  const badPoll = leash(["worker", "--agent", agentModule, "--db", app.db, "--poll-ms", "0"], { cwd: app.cwd });
  assert.equal(badPoll.status, 2);
  assert.equal(errorLine(badPoll).code, "usage");
});

withPostgres("leash worker --database-url", (url) => {
  test("worker --database-url resumes an answered run of a PostgreSQL store once, through a lease", async (t) => {
    const { cwd } = freshApp(t);
    const { store, schema, cleanup } = freshStore(url);
    t.after(cleanup);
    const effectsFile = join(cwd, "effects.jsonl");
    const agent = workerAgent({ store, effectsFile });
    const approved = await agent.run("approved note");
    const waiting = await agent.run("unanswered note");
    await store.answer(approved.runId, Approval.grant(approved.pending!.digest, "noor"));

    // DATABASE_URL is cleared in the child: the module must find the database the option names.
    const env = { DATABASE_URL: "", [SCHEMA_VARIABLE]: schema, LEASH_TEST_EFFECTS: effectsFile };
    const args = ["worker", "--agent", postgresAgent, "--database-url", url, "--once", "--json"];
    const first = leash(args, { cwd, env, tsx: true });
    assert.equal(first.status, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), { resumed: 1, runs: [{ runId: approved.runId, status: "completed" }] });
    assert.deepEqual(
      readWorkerEffects(effectsFile).map((effect) => effect.runId),
      [approved.runId],
    );
    assert.equal((await store.load(waiting.runId))?.status, "awaiting_approval");

    const second = leash(args, { cwd, env, tsx: true });
    assert.equal(second.status, 0, second.stderr);
    assert.deepEqual(JSON.parse(second.stdout), { resumed: 0, runs: [] });
    assert.equal(readWorkerEffects(effectsFile).length, 1, "the write ran once");
    assert.ok(!existsSync(join(cwd, "leash.db")), "no SQLite file is made when the store is PostgreSQL");
  });
});
