// The commands whose PostgreSQL side the other CLI tests leave out: `verify` of a trail that does not
// hold, and a `worker` that runs until SIGTERM, each through the real bin with --db URL --schema.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sql, withPostgres } from "../postgres/database.js";
import { bin, leash, requireBuiltBin, root } from "./cli-helpers.js";
import { openCliStore } from "./cli-stores.js";
import { payAgent } from "./pay-agent.js";

const anyStoreAgent = join(root, "test", "fixtures", "cli", "any-store-agent.ts");

interface VerifyJson {
  ok: boolean;
  problems: { run: string | null; seq: number | null; problem: string }[];
}

/** A long-running `leash worker`, with a wait on its output that fails loudly after a generous deadline. */
function startWorker(args: string[], cwd: string, env: Record<string, string>) {
  requireBuiltBin();
  const child = spawn(process.execPath, [bin, "worker", ...args], {
    cwd,
    env: { ...process.env, LEASH_DEBUG: "", ...env },
  });
  let stdout = "";
  let stderr = "";
  const waiters: (() => void)[] = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const waitFor = async (pattern: RegExp): Promise<void> => {
    const deadline = Date.now() + 60_000;
    while (!pattern.test(stdout)) {
      if (child.exitCode !== null)
        throw new Error(`The worker exited (${child.exitCode}) before printing ${pattern}:\n${stdout}\n${stderr}`);
      if (Date.now() > deadline) throw new Error(`The worker did not print ${pattern}:\n${stdout}\n${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 500);
      });
    }
  };
  return {
    waitFor,
    output: () => stdout,
    stderr: () => stderr,
    kill: (name: NodeJS.Signals) => child.kill(name),
    exited,
  };
}

withPostgres("leash on PostgreSQL: verify and a running worker", (url) => {
  test("verify of a PostgreSQL store names a changed record and a truncated chain, and exits 1", async (t) => {
    const target = openCliStore(t, "postgres");
    const schema = target.args[3] as string;
    const paused = await payAgent(target.store).run("pay the invoice");
    const sound = leash(["verify", ...target.args, "--json"], { cwd: target.cwd, env: { LEASH_DB: "" } });
    assert.equal(sound.status, 0, sound.stdout + sound.stderr);

    const last = await sql(url, `SELECT max(seq) AS seq FROM "${schema}".leash_audit WHERE run_id = $1`, [
      paused.runId,
    ]);
    const lastSeq = Number(last.rows[0]?.seq);
    assert.ok(lastSeq >= 2, "the run has records to tamper with");
    await sql(url, `DELETE FROM "${schema}".leash_audit WHERE run_id = $1 AND seq = $2`, [paused.runId, lastSeq]);
    await sql(
      url,
      `UPDATE "${schema}".leash_audit SET record = regexp_replace(record, '"at":"[^"]+"', '"at":"2000-01-01T00:00:00.000Z"') WHERE run_id = $1 AND seq = 1`,
      [paused.runId],
    );

    const result = leash(["verify", ...target.args, "--json"], { cwd: target.cwd, env: { LEASH_DB: "" } });
    assert.equal(result.status, 1, result.stderr);
    const report = JSON.parse(result.stdout) as VerifyJson;
    assert.equal(report.ok, false);
    assert.deepEqual(
      report.problems.map(({ run, seq, problem }) => ({ run, seq, problem })),
      [
        { run: paused.runId, seq: 1, problem: "changed" },
        { run: paused.runId, seq: lastSeq, problem: "truncated" },
      ],
    );
    const text = leash(["verify", ...target.args], { cwd: target.cwd, env: { LEASH_DB: "" } });
    assert.equal(text.status, 1);
    assert.match(text.stdout, /changed/);
    assert.match(text.stdout, /truncated/);
  });

  test("a running worker on PostgreSQL resumes an approved run once, and SIGTERM stops it with exit 0", async (t) => {
    const target = openCliStore(t, "postgres");
    const paused = await payAgent(target.store).run("pay the invoice");
    const effects = join(target.cwd, "effects.txt");
    const env = { LEASH_TEST_EFFECTS: effects, DATABASE_URL: "", LEASH_DB: "" };
    const approve = leash(["approve", paused.runId, "--as", "noor", ...target.args], { cwd: target.cwd, env });
    assert.equal(approve.status, 0, approve.stderr);

    // Ten minutes between passes: only a SIGTERM that cuts the sleep short ends the worker in time.
    const worker = startWorker(["--agent", anyStoreAgent, ...target.args, "--poll-ms", "600000"], target.cwd, env);
    // A test that fails before the SIGTERM must not leave the worker running.
    t.after(() => worker.kill("SIGKILL"));
    await worker.waitFor(new RegExp(`Resumed run ${paused.runId}: completed\\.`));
    worker.kill("SIGTERM");
    const exit = await worker.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, worker.stderr());
    assert.match(worker.output(), /Worker stopped: resumed 1 run\./);
    assert.deepEqual(readFileSync(effects, "utf8"), "10\n", "the payment ran once");
    assert.equal((await target.store.load(paused.runId))?.status, "completed");
    assert.ok(!existsSync(join(target.cwd, "leash.db")), "no SQLite file was made");
  });
});
