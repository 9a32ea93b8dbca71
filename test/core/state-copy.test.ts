// The planner's copy of the state: made at no cost proportional to the run, yet an ordinary, fresh,
// mutable copy in every way a planner can tell.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, RunState, tool } from "../../src/index.js";
import type { Planner } from "../../src/index.js";

type Ops = (list: unknown[]) => unknown;

// Each operation is done on the copy's steps and on a plain array of the same steps; they must agree.
const OPERATIONS: Array<[string, Ops]> = [
  ["push", (list) => list.push({ extra: true })],
  ["pop", (list) => list.pop()],
  ["shift", (list) => list.shift()],
  ["splice", (list) => list.splice(1, 1, "inserted")],
  ["reverse", (list) => list.reverse()],
  ["sort", (list) => list.sort((a, b) => JSON.stringify(b).localeCompare(JSON.stringify(a)))],
  ["length = 1", (list) => (list.length = 1)],
  ["length = 0 then push", (list) => ((list.length = 0), list.push(1))],
  ["length = 6", (list) => (list.length = 6)],
  // eslint-disable-next-line @typescript-eslint/no-array-delete -- a planner may make a hole; the copy must act as an array does
  ["delete [1]", (list) => delete list[1]],
  ["[7] = x", (list) => (list[7] = "x")],
  ["fill", (list) => list.fill(0, 1)],
  ["copyWithin", (list) => list.copyWithin(0, 2)],
  ["unshift", (list) => list.unshift("first")],
];

const look = (list: unknown[]) => ({
  json: JSON.stringify(list),
  keys: Object.keys(list),
  length: list.length,
  isArray: Array.isArray(list),
  has1: 1 in list,
  spread: JSON.stringify([...list]),
  last: JSON.stringify(list.at(-1)),
  entries: JSON.stringify(Object.entries(list)),
});

test("the planner's copy of the steps behaves as a plain array under every change, and changes nothing of the run", async () => {
  const page = tool({ name: "page", execute: () => ({ text: "page" }) });
  const seen: string[] = [];
  const planner: Planner = (state) => {
    const steps = state.steps as unknown[];
    seen.push(JSON.stringify(steps));
    const count = steps.length;
    if (count < 4) return Decision.act("page", {});
    const original = JSON.parse(JSON.stringify(steps)) as unknown[];
    for (const [name, operation] of OPERATIONS) {
      const copy = state.copy().steps as unknown[];
      const plain = structuredClone(original);
      assert.deepEqual(JSON.stringify(operation(copy)), JSON.stringify(operation(plain)), name);
      assert.deepEqual(look(copy), look(plain), name);
    }
    (state.steps[0]!.result as { text: string }).text = "changed";
    state.steps.length = 0;
    state.said.push("said by the planner");
    state.ran.length = 0;
    return count < 5 ? Decision.act("page", {}) : Decision.finish("done");
  };
  const state = await new Agent({ tools: [page], planner }).run("read");
  assert.equal(state.status, "completed", state.failure?.message);
  assert.equal(state.steps.length, 6);
  assert.deepEqual(state.steps[0]?.result, { text: "page" });
  assert.deepEqual(state.said, []);
  assert.equal(state.ran.length, 5);
  assert.equal(JSON.parse(seen[4]!).length, 4);
  assert.equal(JSON.parse(seen[5]!).length, 5);
});

test("the planner's copy turns into its saved form and back: toJSON works on it and equals the run's", async () => {
  const page = tool({ name: "page", execute: () => "page" });
  let saved: unknown;
  const planner: Planner = (state) => {
    if (state.steps.length < 2) return Decision.act("page", {});
    saved = state.toJSON();
    assert.deepEqual(RunState.fromJSON(saved).toJSON(), saved);
    assert.deepEqual(JSON.parse(JSON.stringify(state)), saved);
    return Decision.finish(state.steps.length);
  };
  const state = await new Agent({ tools: [page], planner }).run("read");
  assert.equal(state.status, "completed");
  const json = saved as { steps: unknown[]; ran: string[] };
  assert.equal(json.steps.length, 2);
  assert.deepEqual(json.ran, ["page", "page"]);
  assert.deepEqual(json.steps, state.toJSON().steps.slice(0, 2));
});
