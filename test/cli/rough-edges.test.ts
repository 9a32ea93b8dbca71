import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, Decision, JsonlAuditSink, tool } from "../../src/index.js";
import { errorLine, leash, root, runTypeScript, tempFolder } from "./cli-helpers.js";

interface VerifyJson {
  ok: boolean;
  problems: { problem: string }[];
}

test("verify of an empty file, or of a file that is no trail, is a problem and exit 1, not a pass", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const files = {
    "empty.jsonl": "",
    "blank.jsonl": "\n\n",
    "notes.txt": "Shopping list\nmilk\n",
    "config.json": '{"name":"app"}\n',
  };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(folder.path, name), text);
    const result = leash(["verify", name, "--json"], { cwd: folder.path });
    assert.equal(result.status, 1, `${name}: ${result.stdout}${result.stderr}`);
    const report = JSON.parse(result.stdout) as VerifyJson;
    assert.equal(report.ok, false, name);
    assert.ok(report.problems.length > 0, name);
  }
  const text = leash(["verify", "empty.jsonl"], { cwd: folder.path });
  assert.equal(text.status, 1);
  assert.match(text.stdout, /not_a_trail/);
});

test("show --trail prints a run's records from a JSONL trail, and whether its chain holds", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const path = join(folder.path, "audit.jsonl");
  const sink = new JsonlAuditSink(path);
  const agent = new Agent({
    tools: [tool({ name: "ping", execute: () => "pong" })],
    planner: (state) => (state.steps.length === 0 ? Decision.act("ping", {}) : Decision.finish("done")),
    audit: sink,
  });
  const first = await agent.run("ping once");
  const second = await agent.run("ping twice");
  await sink.close();
  const own = sink.records.filter((record) => record.run === second.runId);

  const show = leash(["show", second.runId, "--trail", "audit.jsonl"], { cwd: folder.path });
  assert.equal(show.status, 0, show.stderr);
  assert.match(show.stdout, new RegExp(`Run ${second.runId} in the JSONL trail audit.jsonl: ${own.length} records`));
  assert.match(show.stdout, /ping/);
  assert.match(show.stdout, /The run's chain verifies/);
  assert.doesNotMatch(show.stdout, new RegExp(first.runId));

  const json = leash(["show", second.runId, "--trail", "audit.jsonl", "--json"], { cwd: folder.path });
  assert.equal(json.status, 0, json.stderr);
  const parsed = JSON.parse(json.stdout) as { records: { digest: string }[]; problems: unknown[] };
  assert.deepEqual(
    parsed.records.map((record) => record.digest),
    own.map((record) => record.digest),
  );
  assert.deepEqual(parsed.problems, []);

  const unknown = leash(["show", "nope", "--trail", "audit.jsonl"], { cwd: folder.path });
  assert.equal(unknown.status, 2);
  assert.equal(errorLine(unknown).code, "run_not_found");
});

test("resume loads an agent module written in TypeScript without a loader flag", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const db = join(folder.path, "app.db");
  const fixture = join(root, "test", "fixtures", "cli", "paused-agent.ts");
  const started = runTypeScript(fixture, { cwd: folder.path, env: { LEASH_DB: db } });
  assert.equal(started.status, 0, started.stderr);
  const runId = started.stdout.trim();
  assert.equal(leash(["approve", runId, "--as", "noor", "--db", db], { cwd: folder.path }).status, 0);
  const resume = leash(["resume", runId, "--agent", fixture, "--db", db], {
    cwd: folder.path,
    env: { NODE_OPTIONS: "" },
  });
  assert.equal(resume.status, 0, resume.stderr);
  assert.match(resume.stdout, /it is now completed/);
});
