import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { storeAgent } from "../fixtures/stores/store-agent.js";
import { leash } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";
import { INTERRUPTED_TOOL, interruptedRun } from "./interrupted-run.js";
import { payAgent } from "./pay-agent.js";
import { interruptedText } from "../../src/operate/interrupted-steps.js";

const FLAG = "1 interrupted step: a person should check whether it took effect";

eachStore("leash runs flags a run with an interrupted step, in text and in --json", async (_t, target) => {
  const interrupted = await interruptedRun(target, "killed-write");
  const calm = await payAgent(target.store).run("pay the bill");
  const text = leash(["runs", ...target.args], { cwd: target.cwd });
  assert.equal(text.status, 0, text.stderr);
  assert.ok(text.stdout.includes(`Run ${interrupted.runId}: ${FLAG} (leash show ${interrupted.runId}).`), text.stdout);
  assert.ok(!text.stdout.includes(`Run ${calm.runId}:`), "a run without one is not flagged");

  const json = leash(["runs", "--json", ...target.args], { cwd: target.cwd });
  assert.equal(json.status, 0, json.stderr);
  const { runs } = JSON.parse(json.stdout) as { runs: { runId: string; interruptedSteps: number }[] };
  assert.deepEqual(
    runs.map((run) => [run.runId, run.interruptedSteps]).sort(),
    [
      [calm.runId, 0],
      [interrupted.runId, 1],
    ].sort(),
  );
});

eachStore(
  "leash show says an interrupted call started with its outcome unknown, not among the tools that ran",
  async (_t, target) => {
    const state = await interruptedRun(target, "killed-write");
    const shown = leash(["show", state.runId, ...target.args], { cwd: target.cwd });
    assert.equal(shown.status, 0, shown.stderr);
    const lines = shown.stdout.split("\n");
    assert.equal(lines[1], `  ${FLAG}`);
    assert.match(
      shown.stdout,
      /-> interrupted: started, outcome unknown \(a person should check whether it took effect\)/,
    );
    assert.ok(lines.includes("Tools that ran: none (1 call)"), shown.stdout);
    assert.ok(lines.includes(`Started, outcome unknown: ${INTERRUPTED_TOOL} (step 0)`), shown.stdout);

    const json = leash(["show", state.runId, "--json", ...target.args], { cwd: target.cwd });
    assert.equal(json.status, 0, json.stderr);
    assert.equal((JSON.parse(json.stdout) as { interruptedSteps: number }).interruptedSteps, 1);
  },
);

eachStore("leash show lists a call that ended among the tools that ran, with no flag", async (_t, target) => {
  const done = await storeAgent({ store: target.store, tool: "read", effectsFile: join(target.cwd, "reads") }).run(
    "read the page",
  );
  assert.equal(done.status, "completed");
  const shown = leash(["show", done.runId, ...target.args], { cwd: target.cwd });
  assert.equal(shown.status, 0, shown.stderr);
  assert.doesNotMatch(shown.stdout, /interrupted|outcome unknown/);
  assert.match(shown.stdout, /^Tools that ran: fetch_page \(1 call\)$/m);
});

test("the flag counts interrupted steps in the singular and the plural", () => {
  assert.equal(interruptedText(0), null);
  assert.equal(interruptedText(1), FLAG);
  assert.equal(interruptedText(2), "2 interrupted steps: a person should check whether they took effect");
  assert.equal(interruptedText(11), "11 interrupted steps: a person should check whether they took effect");
});
