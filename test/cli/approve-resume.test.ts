import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { errorLine, leash, root, runTypeScript, tempFolder } from "./cli-helpers.js";

const agentModule = join(root, "test", "fixtures", "cli", "paused-agent.ts");

/** Starts a run of the fixture app that pauses before its write; returns the database and the run id. */
function pausedRun(cwd: string): { db: string; runId: string } {
  const db = join(cwd, "app.db");
  const started = runTypeScript(agentModule, { cwd, env: { LEASH_DB: db } });
  assert.equal(started.status, 0, started.stderr);
  return { db, runId: started.stdout.trim() };
}

function saved(db: string): string[] {
  return existsSync(`${db}.saved`)
    ? readFileSync(`${db}.saved`, "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
}

test("the inbox lists a paused run and show prints the request it waits on", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { db, runId } = pausedRun(folder.path);
  const inbox = leash(["runs", "--status", "awaiting_approval", "--db", db], { cwd: folder.path });
  assert.equal(inbox.status, 0, inbox.stderr);
  assert.match(inbox.stdout, new RegExp(`${runId}\\s+awaiting_approval`));
  // The footer sends a person to the request first, and to an answer pinned to the digest they read.
  assert.match(inbox.stdout, /leash show RUN.*then leash approve RUN --as NAME --digest DIGEST/);
  const listed = JSON.parse(
    leash(["runs", "--status", "completed", "--db", db, "--json"], { cwd: folder.path }).stdout,
  ) as { runs: unknown[] };
  assert.deepEqual(listed.runs, []);

  const show = leash(["show", runId, "--db", db], { cwd: folder.path });
  assert.equal(show.status, 0, show.stderr);
  assert.match(show.stdout, /Waiting for a person:/);
  assert.match(
    show.stdout,
    /asks to run save with these arguments, in full:\n {4}\{\n {6}"text": "the report"\n {4}\}/,
  );
  assert.match(show.stdout, /effect: write/);
  assert.match(show.stdout, /digest: [0-9a-f]{64}/);
  assert.match(show.stdout, /it holds the state's auditHead, as its last record/);
});

test("approve records the answer without running the tool, and resume --agent runs it once", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { db, runId } = pausedRun(folder.path);

  const approve = leash(["approve", runId, "--as", "noor", "--note", "fine", "--db", db, "--json"], {
    cwd: folder.path,
  });
  assert.equal(approve.status, 0, approve.stderr);
  const answered = JSON.parse(approve.stdout) as {
    runId: string;
    status: string;
    answer: { granted: boolean; approver: string; note: string; digest: string };
    request: { digest: string };
  };
  assert.equal(answered.status, "awaiting_approval", "approve only records the answer");
  assert.deepEqual({ ...answered.answer, digest: "" }, { granted: true, approver: "noor", note: "fine", digest: "" });
  assert.equal(answered.answer.digest, answered.request.digest);
  assert.deepEqual(saved(db), [], "approve runs no tool");

  const resume = leash(["resume", runId, "--agent", agentModule, "--db", db], { cwd: folder.path, tsx: true });
  assert.equal(resume.status, 0, resume.stderr);
  assert.match(resume.stdout, /resumed: it is now completed/);
  assert.match(resume.stdout, /save -> executed/);
  assert.deepEqual(saved(db), ["the report"]);

  const again = leash(["resume", runId, "--agent", agentModule, "--db", db], { cwd: folder.path, tsx: true });
  assert.equal(again.status, 2);
  assert.equal(errorLine(again).code, "run_ended");
  assert.deepEqual(saved(db), ["the report"], "an approval runs its action once");

  const verify = leash(["verify", "--db", db], { cwd: folder.path });
  assert.equal(verify.status, 0, verify.stdout);
});

test("deny records a refusal; at resume the step is approval_denied and the tool never runs", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { db, runId } = pausedRun(folder.path);
  assert.equal(leash(["deny", runId, "--as", "noor", "--db", db], { cwd: folder.path }).status, 0);
  const resume = leash(["resume", runId, "--agent", agentModule, "--db", db, "--json"], {
    cwd: folder.path,
    tsx: true,
  });
  assert.equal(resume.status, 0, resume.stderr);
  const { state } = JSON.parse(resume.stdout) as { state: { status: string; steps: { outcome: string }[] } };
  assert.equal(state.steps[0]?.outcome, "approval_denied");
  assert.deepEqual(saved(db), []);
});

test("resume without a recorded answer leaves the run paused", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { db, runId } = pausedRun(folder.path);
  const resume = leash(["resume", runId, "--agent", agentModule, "--db", db], { cwd: folder.path, tsx: true });
  assert.equal(resume.status, 0, resume.stderr);
  assert.match(resume.stdout, /it is now awaiting_approval/);
  assert.match(resume.stdout, /It waits again/);
  assert.deepEqual(saved(db), []);
});

test("approving a run that waits for nothing, or an unknown run, is one line and exit 2", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { db, runId } = pausedRun(folder.path);
  assert.equal(leash(["approve", runId, "--as", "noor", "--db", db], { cwd: folder.path }).status, 0);
  assert.equal(leash(["resume", runId, "--agent", agentModule, "--db", db], { cwd: folder.path, tsx: true }).status, 0);

  const completed = leash(["approve", runId, "--as", "noor", "--db", db], { cwd: folder.path });
  assert.equal(completed.status, 2);
  const error = errorLine(completed);
  assert.equal(error.code, "stale_state");
  assert.match(error.message, /is completed, not awaiting approval/);

  const unknown = leash(["show", "nope", "--db", db], { cwd: folder.path });
  assert.equal(unknown.status, 2);
  assert.equal(errorLine(unknown).code, "run_not_found");
  assert.equal(
    errorLine(leash(["approve", "nope", "--as", "noor", "--db", db], { cwd: folder.path })).code,
    "run_not_found",
  );
});

test("resume refuses a module that exports no agent, and a database that does not exist", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { db, runId } = pausedRun(folder.path);
  const noAgent = leash(
    ["resume", runId, "--agent", join(root, "test", "fixtures", "cli", "no-agent.ts"), "--db", db],
    { cwd: folder.path, tsx: true },
  );
  assert.equal(noAgent.status, 2);
  assert.equal(errorLine(noAgent).code, "invalid_agent_module");

  const missingModule = leash(["resume", runId, "--agent", "nowhere.js", "--db", db], { cwd: folder.path });
  assert.equal(errorLine(missingModule).code, "agent_not_found");

  const missingDb = leash(["resume", runId, "--agent", agentModule, "--db", "missing.db"], {
    cwd: folder.path,
    tsx: true,
  });
  assert.equal(missingDb.status, 2);
  assert.equal(errorLine(missingDb).code, "db_not_found");
  assert.ok(!existsSync(join(folder.path, "missing.db")), "no database is created");
});
