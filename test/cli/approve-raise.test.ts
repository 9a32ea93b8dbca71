import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { errorLine, leash, root, runTypeScript, tempFolder } from "./cli-helpers.js";

const agentModule = join(root, "test", "fixtures", "cli", "raise-agent.ts");

/** Starts a run of the fixture app that pauses on its tool-call limit; returns the database and the run id. */
function pausedRun(cwd: string): { db: string; runId: string } {
  const db = join(cwd, "app.db");
  const started = runTypeScript(agentModule, { cwd, env: { LEASH_DB: db } });
  assert.equal(started.status, 0, started.stderr);
  return { db, runId: started.stdout.trim() };
}

function ticks(db: string): number {
  return existsSync(`${db}.ticks`) ? readFileSync(`${db}.ticks`, "utf8").split("\n").filter(Boolean).length : 0;
}

interface Shown {
  status: string;
  limits: { maxToolCalls?: number };
  pending?: { kind: string; digest: string; limit: string; used: number; allowed: number };
}

function stateOf(db: string, runId: string, cwd: string): Shown {
  const show = leash(["show", runId, "--db", db, "--json"], { cwd });
  assert.equal(show.status, 0, show.stderr);
  return (JSON.parse(show.stdout) as { state: Shown }).state;
}

test("leash show names a limit request, approve --raise-to records the raise, and resume in another process runs on with it", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const cwd = folder.path;
  const { db, runId } = pausedRun(cwd);
  assert.equal(ticks(db), 2);

  const show = leash(["show", runId, "--db", db], { cwd });
  assert.equal(show.status, 0, show.stderr);
  assert.match(show.stdout, /reached max_tool_calls \(tool calls 2 used of 2\) at step 2; asks to raise it/);
  assert.match(show.stdout, /leash approve .* --raise-to N/);
  const pending = stateOf(db, runId, cwd).pending!;
  assert.deepEqual([pending.kind, pending.limit, pending.used, pending.allowed], ["limit", "max_tool_calls", 2, 2]);

  // Approving a limit request says to what; a raise not above what was used is refused; neither records anything.
  const bare = leash(["approve", runId, "--as", "finance", "--db", db], { cwd });
  assert.equal(bare.status, 2);
  assert.equal(errorLine(bare).code, "invalid_option");
  assert.match(errorLine(bare).message, /--raise-to/);
  const low = leash(["approve", runId, "--as", "finance", "--raise-to", "2", "--db", db], { cwd });
  assert.equal(low.status, 2);
  assert.equal(errorLine(low).code, "invalid_answer");
  const notNumber = leash(["approve", runId, "--as", "finance", "--raise-to", "lots", "--db", db], { cwd });
  assert.equal(notNumber.status, 2);
  assert.equal(stateOf(db, runId, cwd).pending?.digest, pending.digest);

  const approve = leash(
    ["approve", runId, "--as", "finance", "--raise-to", "4", "--digest", pending.digest.slice(0, 16), "--db", db],
    { cwd },
  );
  assert.equal(approve.status, 0, approve.stderr);
  assert.match(approve.stdout, /Approved the raise of max_tool_calls at step 2 .* used 2 of 2, raised to 4\./);
  assert.equal(ticks(db), 2, "approve runs nothing");

  const resume = leash(["resume", runId, "--agent", agentModule, "--db", db], { cwd, tsx: true });
  assert.equal(resume.status, 0, resume.stderr);
  assert.match(resume.stdout, /resumed: it is now completed/);
  assert.equal(ticks(db), 4);
  const done = stateOf(db, runId, cwd);
  assert.equal(done.status, "completed");
  assert.equal(done.limits.maxToolCalls, 4);

  const verify = leash(["verify", "--db", db], { cwd });
  assert.equal(verify.status, 0, verify.stdout + verify.stderr);
});

test("a raise by someone the app's mayApprove refuses is recorded but raises nothing; deny stops the run with the limit's reason", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const cwd = folder.path;
  const { db, runId } = pausedRun(cwd);
  const intern = leash(["approve", runId, "--as", "intern", "--raise-to", "100", "--db", db], { cwd });
  assert.equal(intern.status, 0, intern.stderr);
  const refused = leash(["resume", runId, "--agent", agentModule, "--db", db], { cwd, tsx: true });
  assert.equal(refused.status, 2);
  assert.equal(errorLine(refused).code, "approver_not_allowed");
  assert.equal(ticks(db), 2);

  const deny = leash(["deny", runId, "--as", "finance", "--note", "enough", "--db", db], { cwd });
  assert.equal(deny.status, 0, deny.stderr);
  const resume = leash(["resume", runId, "--agent", agentModule, "--db", db], { cwd, tsx: true });
  assert.equal(resume.status, 0, resume.stderr);
  const ended = stateOf(db, runId, cwd);
  assert.equal(ended.status, "stopped");
  assert.equal((ended as unknown as { stopReason: string }).stopReason, "max_tool_calls");
  assert.equal(ticks(db), 2);
  const verify = leash(["verify", "--db", db], { cwd });
  assert.equal(verify.status, 0, verify.stdout + verify.stderr);
});
