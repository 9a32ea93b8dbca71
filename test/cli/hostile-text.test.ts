import { test } from "node:test";
import assert from "node:assert/strict";
import { errorLine, leash } from "./cli-helpers.js";
import { eachStore, openCliStore } from "./cli-stores.js";
import { payAgent } from "./pay-agent.js";

/** What a model may say to repaint an approver's screen: erase the line, go back, reorder, and worse. */
const REPAINT = "pay 10\u001b[2K\u001b[1G\rpay 10";
const HOSTILE = `${REPAINT}\u009b31m\u007f\u202eoo001\u202c\u2066x\u2069\u200e\u0007 end\nforged line`;

/** Characters a terminal acts on, or that reorder text, left anywhere in output meant for a screen. */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function assertSafe(output: string, where: string): void {
  const found = UNSAFE.exec(output);
  assert.equal(found, null, `${where} holds U+${found?.[0].charCodeAt(0).toString(16).padStart(4, "0")}:\n${output}`);
}

eachStore("show, runs and approve escape control characters of run data, visibly", async (t, target) => {
  const agent = payAgent(target.store, { reason: HOSTILE, memo: HOSTILE });
  const paused = await agent.run(`goal ${HOSTILE}`);
  const cwd = target.cwd;

  const show = leash(["show", paused.runId, ...target.args], { cwd });
  assert.equal(show.status, 0, show.stderr);
  assertSafe(show.stdout, "show");
  assert.ok(show.stdout.includes("\\x1b[2K"), "ESC is shown as \\x1b");
  assert.ok(show.stdout.includes("\\u202e"), "a bidi override is shown as \\u202e");
  assert.ok(show.stdout.includes("\\x9b"), "a C1 control is shown as \\x9b");
  assert.ok(!show.stdout.split("\n").some((line) => line.startsWith("forged line")), "no line is forged");

  const runs = leash(["runs", ...target.args], { cwd });
  assert.equal(runs.status, 0, runs.stderr);
  assertSafe(runs.stdout, "runs");

  const approve = leash(["approve", paused.runId, "--as", `noor\u001b[8m`, "--note", `fine\u202e`, ...target.args], {
    cwd,
  });
  assert.equal(approve.status, 0, approve.stderr);
  assertSafe(approve.stdout, "approve");
  assert.ok(approve.stdout.includes("noor\\u001b[8m"), approve.stdout);

  const after = leash(["show", paused.runId, ...target.args], { cwd });
  assertSafe(after.stdout, "show after the answer");
});

eachStore("--json output escapes what a terminal acts on and still parses to the run's own text", async (t, target) => {
  const paused = await payAgent(target.store, { reason: HOSTILE }).run(`goal ${HOSTILE}`);
  for (const args of [["show", paused.runId], ["runs"]]) {
    const result = leash([...args, ...target.args, "--json"], { cwd: target.cwd });
    assert.equal(result.status, 0, result.stderr);
    assertSafe(result.stdout.replaceAll("\n", " "), `${args[0]} --json`);
    const parsed = JSON.parse(result.stdout) as { state?: { goal: string }; runs?: { goal: string }[] };
    assert.equal(parsed.state?.goal ?? parsed.runs?.[0]?.goal, `goal ${HOSTILE}`);
  }
});

test("an error that quotes a hostile run id is escaped too, in text and in JSON", async (t) => {
  const target = openCliStore(t, "sqlite");
  await payAgent(target.store).run("pay the invoice");
  const text = leash(["show", "nope\u001b]0;owned\u0007", ...target.args], { cwd: target.cwd });
  assert.equal(text.status, 2);
  assertSafe(text.stderr.replace(/\n$/, ""), "the error");
  assert.equal(errorLine(text).code, "run_not_found");
  assert.ok(text.stderr.includes("nope\\x1b]0;owned\\x07"), text.stderr);

  const json = leash(["show", "nope\u009b2J\u202e", ...target.args, "--json"], { cwd: target.cwd });
  assert.equal(json.status, 2);
  assertSafe(json.stderr.replace(/\n$/, ""), "the JSON error");
  const { error } = JSON.parse(json.stderr) as { error: { code: string; message: string } };
  assert.equal(error.code, "run_not_found");
  assert.ok(error.message.includes("nope\u009b2J\u202e"), "JSON keeps the text itself");
});

/** Zero-width, format and tag characters: invisible on a screen, so a run can hide text with them. */
const INVISIBLE = [
  "\u200b",
  "\u200c",
  "\u200d",
  "\u2060",
  "\u2064",
  "\ufeff",
  "\u00ad",
  "\u180e",
  "\u{e0041}",
  "\u{e007f}",
  "\u0600",
];

eachStore(
  "show and approve escape every format (Cf) and control (Cc) character, in text and JSON",
  async (t, target) => {
    const hidden = `pay 1${INVISIBLE.join("")}0`;
    const paused = await payAgent(target.store, { reason: hidden, memo: hidden }).run(`goal ${hidden}`);
    const show = leash(["show", paused.runId, ...target.args], { cwd: target.cwd });
    assert.equal(show.status, 0, show.stderr);
    const found = /[\p{Cf}\p{Cc}]/u.exec(show.stdout.replaceAll("\n", ""));
    assert.equal(found, null, `show holds U+${found?.[0].codePointAt(0)?.toString(16)}`);
    assert.ok(show.stdout.includes("\\u200b"), show.stdout);
    assert.ok(show.stdout.includes("\\u{e0041}") || show.stdout.includes("\\udb40\\udc41"), show.stdout);

    const json = leash(["show", paused.runId, ...target.args, "--json"], { cwd: target.cwd });
    assert.equal(json.status, 0, json.stderr);
    assert.equal(/[\p{Cf}\p{Cc}]/u.exec(json.stdout.replaceAll("\n", "")), null);
    assert.equal((JSON.parse(json.stdout) as { state: { goal: string } }).state.goal, `goal ${hidden}`);

    const approve = leash(["approve", paused.runId, "--as", `noor${INVISIBLE.join("")}`, ...target.args], {
      cwd: target.cwd,
    });
    assert.equal(approve.status, 0, approve.stderr);
    assert.equal(/[\p{Cf}\p{Cc}]/u.exec(approve.stdout.replaceAll("\n", "")), null, approve.stdout);
  },
);
