import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Agent, Decision, JsonlAuditSink, tool } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { payAgent } from "./pay-agent.js";
import { bin, errorLine, leash, root, runTypeScript, tempFolder } from "./cli-helpers.js";

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

/** Whether this Node loads TypeScript itself, without tsx (`process.features.typescript`). */
function nodeStripsTypes(): boolean {
  return (process.features as { typescript?: unknown }).typescript !== undefined;
}

test(
  "an --agent module in TypeScript without tsx installed is a clear error saying what to do",
  { skip: nodeStripsTypes() ? "this Node loads TypeScript without tsx" : false },
  async (t) => {
    // leash installed in an app that has leash's dependencies but not tsx.
    const app = tempFolder();
    t.after(app.remove);
    const installed = join(app.path, "node_modules", "leash");
    mkdirSync(installed, { recursive: true });
    cpSync(dirname(dirname(bin)), join(installed, "dist"), { recursive: true });
    cpSync(join(root, "package.json"), join(installed, "package.json"));
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    for (const name of Object.keys(manifest.dependencies)) {
      // A scoped package (`@hono/node-server`) sits in its scope's folder, which must exist first.
      mkdirSync(dirname(join(app.path, "node_modules", name)), { recursive: true });
      symlinkSync(join(root, "node_modules", name), join(app.path, "node_modules", name), "dir");
    }
    writeFileSync(join(app.path, "agent.ts"), "export const agent: unknown = undefined;\n");
    const db = join(app.path, "app.db");
    const store = new SqliteStore(db);
    const paused = await payAgent(store).run("pay the invoice");
    await store.close();

    const result = spawnSync(
      process.execPath,
      [join(installed, "dist", "cli", "main.js"), "resume", paused.runId, "--agent", "agent.ts", "--db", db],
      { cwd: app.path, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "", LEASH_DEBUG: "" } },
    );
    assert.equal(result.status, 2, result.stderr);
    const error = errorLine({ status: result.status, stdout: result.stdout, stderr: result.stderr });
    assert.equal(error.code, "tsx_not_installed");
    assert.match(error.message, /npm install --save-dev tsx/);
    assert.match(error.message, /compile/);
  },
);
