// The parts a store keeps of a run (a header and one text per step): the header holds nothing that
// grows with every step, and a state rebuilt from its parts equals the state saved.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Agent, Decision, RunState, allow, block, tool } from "../../src/index.js";
import type { Planner } from "../../src/index.js";

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/states/${name}`, import.meta.url), "utf8");

const partsOf = (state: RunState): { header: string; steps: string[] } => ({
  header: state.headerText(),
  steps: state.steps.map((_, index) => state.stepText(index)),
});

/** A run whose steps ran a tool, were blocked by a guard, named no tool, and ran a tool again. */
async function mixedRun(): Promise<RunState> {
  const page = tool({ name: "page", execute: () => "a page" });
  const save = tool({
    name: "save",
    parameters: { type: "object", properties: { text: { type: "string" } } },
    execute: () => "saved",
  });
  const decisions = [
    Decision.act("page", {}),
    Decision.act("save", { text: "SHOUT" }),
    Decision.act("nowhere", {}),
    Decision.act("save", { text: "quiet" }),
    Decision.act("page", {}),
  ];
  const planner: Planner = (state) => decisions[state.steps.length] ?? Decision.finish("done");
  const agent = new Agent({
    tools: [page, save],
    planner,
    guards: [
      {
        name: "Quiet",
        beforeTool: (_work, _tool, args) =>
          (args as { text?: string }).text === "SHOUT" ? block("No shouting.") : allow(),
      },
    ],
  });
  const state = await agent.run("read and save");
  assert.equal(state.status, "completed", state.failure?.message);
  return state;
}

test("the header a store writes leaves out `ran`, which grows with every call, and the state rebuilt from its parts equals the one saved", async () => {
  const state = await mixedRun();
  assert.deepEqual(state.ran, ["page", "save", "page"]);
  assert.equal(state.said.length, 1);
  const { header, steps } = partsOf(state);
  assert.equal(Object.hasOwn(JSON.parse(header) as object, "ran"), false);
  const rebuilt = RunState.fromParts(header, steps);
  assert.deepEqual(rebuilt.toJSON(), state.toJSON());
  assert.deepEqual(rebuilt.ran, ["page", "save", "page"]);
  // Parsed parts rebuild it the same.
  assert.deepEqual(
    RunState.fromParts(
      JSON.parse(header),
      steps.map((text) => JSON.parse(text) as unknown),
    ).toJSON(),
    state.toJSON(),
  );
});

test("a call started again after a crash counts once in the `ran` rebuilt from the steps, as it did when it ran", () => {
  const saved = JSON.parse(fixture("v1-completed.json")) as { steps: Array<{ starts?: number }>; ran: string[] };
  saved.steps[0]!.starts = 3;
  const state = RunState.fromJSON(saved);
  const rebuilt = RunState.fromParts(state.headerText(), partsOf(state).steps);
  assert.deepEqual(rebuilt.ran, saved.ran);
  assert.deepEqual(rebuilt.toJSON(), state.toJSON());
});

/** A version-1 saved form as version 2 writes it: its pending request marked as a call's. */
function asVersion2(json: Record<string, unknown>): Record<string, unknown> {
  const pending = json.pending as Record<string, unknown> | undefined;
  return { ...json, version: 2, ...(pending === undefined ? {} : { pending: { kind: "call", ...pending } }) };
}

test("a header written with `ran` by an older leash loads with `ran` as written", () => {
  for (const name of ["v1-awaiting-approval.json", "v1-completed.json"]) {
    const saved = JSON.parse(fixture(name)) as { steps: unknown[]; ran: string[] };
    const header = JSON.stringify({ ...saved, steps: [], ran: [...saved.ran, "older"] });
    const steps = saved.steps.map((step) => JSON.stringify(step));
    const state = RunState.fromParts(header, steps);
    assert.deepEqual(state.ran, [...saved.ran, "older"]);
    assert.deepEqual(state.toJSON(), asVersion2({ ...saved, ran: [...saved.ran, "older"] }));
  }
});

test("the saved form keeps `ran`: toJSON and toJSONText still carry it", async () => {
  const state = await mixedRun();
  assert.deepEqual(state.toJSON().ran, ["page", "save", "page"]);
  assert.deepEqual((JSON.parse(state.toJSONText()) as { ran: string[] }).ran, ["page", "save", "page"]);
  for (const name of ["v1-awaiting-approval.json", "v1-completed.json"]) {
    const text = fixture(name);
    assert.deepEqual(RunState.fromJSON(text).toJSON(), asVersion2(JSON.parse(text)));
  }
});
