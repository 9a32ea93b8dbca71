// `leash runs --limit N --cursor C`: one page of runs and the cursor of the next, in text and JSON,
// through the real bin on each kind of store; a bad limit or cursor is a usage error that lists nothing.
import assert from "node:assert/strict";
import { leash } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";
import { stateOf } from "../contract/contract-fixtures.js";

interface Listed {
  runs: { runId: string; goal: string; goalShortened: boolean }[];
  next: string | null;
}

eachStore("runs --limit pages through every run once, oldest first, and --json gives next", async (_t, target) => {
  const created: string[] = [];
  for (let index = 0; index < 7; index += 1) {
    const runId = `r-${(index * 3) % 7}-${index}`;
    await target.store.create(stateOf(runId, { status: index % 2 === 0 ? "running" : "completed" }));
    created.push(runId);
  }
  const run = (args: string[]) => leash(["runs", ...target.args, ...args], { cwd: target.cwd, env: { LEASH_DB: "" } });
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 10; pages += 1) {
    const result = run(["--limit", "3", "--json", ...(cursor === null ? [] : ["--cursor", cursor])]);
    assert.equal(result.status, 0, result.stderr);
    const listed = JSON.parse(result.stdout) as Listed;
    assert.ok(listed.runs.length <= 3);
    seen.push(...listed.runs.map((item) => item.runId));
    if (listed.runs.length < 3) assert.equal(listed.next, null);
    cursor = listed.next;
    if (cursor === null) break;
  }
  assert.deepEqual(seen, created);

  const text = run(["--limit", "2", "--status", "running"]);
  assert.equal(text.status, 0, text.stderr);
  const more = /More runs: leash runs .*--status running --limit 2 --cursor (\S+)/.exec(text.stdout);
  assert.ok(more, text.stdout);
  const rest = run(["--status", "running", "--cursor", more[1]!, "--json"]);
  assert.equal(rest.status, 0, rest.stderr);
  assert.deepEqual(
    (JSON.parse(rest.stdout) as Listed).runs.map((item) => item.runId),
    created.filter((_, index) => index % 2 === 0).slice(2),
  );
  // Without --limit there is one page, and no next.
  assert.equal((JSON.parse(run(["--json"]).stdout) as Listed).next, null);
  assert.doesNotMatch(run([]).stdout, /More runs/);
});

eachStore("runs refuses a bad --limit or --cursor with a usage error, and lists nothing", async (_t, target) => {
  await target.store.create(stateOf("only"));
  for (const args of [
    ["--limit", "0"],
    ["--limit", "10001"],
    ["--limit", "two"],
    ["--cursor", "not-a-cursor"],
    ["--cursor", Buffer.from(JSON.stringify(["updated_desc", "x", "only"])).toString("base64url")],
    ["--status", "gave_up", "--cursor", "not-a-cursor"],
  ]) {
    const result = leash(["runs", ...target.args, ...args], { cwd: target.cwd, env: { LEASH_DB: "" } });
    assert.equal(result.status, 2, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
    assert.doesNotMatch(result.stdout, /only/);
  }
});

eachStore("runs shows a hostile goal escaped and cut, in the table and in JSON", async (_t, target) => {
  const goal = `\u202e\u0007evil\ud800${"x".repeat(1_000_000)}`;
  await target.store.create(stateOf("hostile", { goal }));
  const text = leash(["runs", ...target.args], { cwd: target.cwd, env: { LEASH_DB: "" } });
  assert.equal(text.status, 0, text.stderr);
  const row = text.stdout.split("\n").find((line) => line.startsWith("hostile"));
  assert.ok(row !== undefined, text.stdout);
  assert.ok(!text.stdout.includes("\u202e") && !text.stdout.includes("\u0007"), "no raw control or bidi character");
  assert.match(row, /\\u202e\\x07evil\\ud800x+…/);
  assert.ok(row.length < 200, `the row is cut: ${row.length}`);
  const json = leash(["runs", ...target.args, "--json"], { cwd: target.cwd, env: { LEASH_DB: "" } });
  assert.equal(json.status, 0, json.stderr);
  const [listed] = (JSON.parse(json.stdout) as Listed).runs;
  assert.equal(listed?.goalShortened, true);
  assert.equal(listed?.goal.length, 201);
});
