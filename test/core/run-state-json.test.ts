import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Agent, Approval, Decision, MemoryStore, Policy, RunState, isLeashError, tool } from "../../src/index.js";

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/states/${name}`, import.meta.url), "utf8");

/** A version-1 saved form as version 2 writes it: the same fields, its requests marked as calls'. */
function asVersion2(json: Record<string, unknown>): Record<string, unknown> {
  const call = (request: unknown) => ({ kind: "call", ...(request as Record<string, unknown>) });
  const out: Record<string, unknown> = { ...json, version: 2 };
  if (json.pending !== undefined) out.pending = call(json.pending);
  if (Array.isArray(json.waiting)) out.waiting = json.waiting.map(call);
  return out;
}

test("saved states of format version 1 still load, field for field, and are written as version 2", () => {
  for (const name of ["v1-awaiting-approval.json", "v1-completed.json"]) {
    const text = fixture(name);
    const state = RunState.fromJSON(text);
    assert.deepEqual(state.toJSON(), asVersion2(JSON.parse(text)));
  }
  assert.equal(RunState.fromJSON(fixture("v1-awaiting-approval.json")).pending?.kind, "call");
  const completed = RunState.fromJSON(fixture("v1-completed.json"));
  assert.equal(completed.status, "completed");
  assert.equal(({} as Record<string, unknown>).polluted, undefined, "a __proto__ key in data pollutes nothing");
  const result = completed.steps[0]?.result as Record<string, unknown>;
  assert.deepEqual(Object.keys(result), ["page", "__proto__", "constructor"]);
});

test("a saved paused state resumes after a round trip through JSON text", async () => {
  const written: string[] = [];
  const save = tool({
    name: "save",
    parameters: { type: "object", properties: { text: { type: "string" } } },
    effect: "write",
    execute: ({ text }: { text: string }) => written.push(text),
  });
  const agent = new Agent({
    tools: [save],
    policy: new Policy({ allowEffects: ["read", "write"] }),
    planner: (state) => (state.steps.length === 0 ? Decision.act("save", { text: "x" }) : Decision.finish("ok")),
  });
  const paused = await agent.run("save");
  const text = JSON.stringify(paused);
  const copy = RunState.fromJSON(text);
  assert.deepEqual(copy.toJSON(), paused.toJSON());
  const done = await agent.resume(copy, { approvals: [Approval.grant(copy.pending!.digest, "allen")] });
  assert.equal(done.status, "completed");
  assert.deepEqual(written, ["x"]);
});

test("a saved state of format version 2 paused on a limit loads field for field and resumes with a raise", async () => {
  const text = fixture("v2-awaiting-raise.json");
  const state = RunState.fromJSON(text);
  assert.deepEqual(state.toJSON(), JSON.parse(text));
  const pending = state.pending;
  assert.equal(pending?.kind, "limit");
  if (pending?.kind !== "limit") return;
  assert.deepEqual([pending.limit, pending.used, pending.allowed, pending.step], ["max_cost", 0.04, 0.05, 2]);
  const agent = new Agent({
    tools: [tool({ name: "tick", cost: 0.02, execute: () => "ticked" })],
    planner: (seen) => (seen.steps.length >= 4 ? Decision.finish("done") : Decision.act("tick", {})),
  });
  const done = await agent.resume(state, { approvals: [Approval.raise(pending.digest, "noor", 0.1)] });
  assert.equal(done.status, "completed");
  assert.equal(done.toolCalls, 4);
  assert.equal(done.limits.maxCost, 0.1);
  // A limit request's fields are checked like a call's: a limit leash cannot raise is refused.
  const json = JSON.parse(text);
  json.pending.limit = "max_duration";
  assert.throws(
    () => RunState.fromJSON(json),
    (error) => isLeashError(error, "invalid_state"),
  );
});

test("a state from a future format version is refused (unsupported_version)", () => {
  const json = JSON.parse(fixture("v1-completed.json"));
  json.version = 3;
  assert.throws(
    () => RunState.fromJSON(json),
    (error) => isLeashError(error, "unsupported_version"),
  );
  assert.throws(
    () => RunState.fromJSON({ ...json, version: undefined }),
    (error) => isLeashError(error, "unsupported_version"),
  );
});

test("a state with a __proto__ key, an unknown key or a wrong type is refused (invalid_state)", () => {
  const text = fixture("v1-completed.json");
  const withProto = text.replace('"format"', '"__proto__": { "status": "completed" }, "format"');
  assert.throws(
    () => RunState.fromJSON(withProto),
    (error) => isLeashError(error, "invalid_state"),
  );
  const json = JSON.parse(text);
  assert.throws(
    () => RunState.fromJSON({ ...json, extra: 1 }),
    (error) => isLeashError(error, "invalid_state"),
  );
  assert.throws(
    () => RunState.fromJSON({ ...json, revision: -1 }),
    (error) => isLeashError(error, "invalid_state"),
  );
  assert.throws(
    () => RunState.fromJSON({ ...json, status: "done" }),
    (error) => isLeashError(error, "invalid_state"),
  );
  assert.throws(
    () => RunState.fromJSON({ ...json, steps: [{ index: 0 }] }),
    (error) => isLeashError(error, "invalid_state"),
  );
  assert.throws(
    () => RunState.fromJSON("{not json"),
    (error) => isLeashError(error, "invalid_state"),
  );
});

test("the store keeps its own copy: changing a loaded state changes nothing stored", async () => {
  const store = new MemoryStore();
  const agent = new Agent({ tools: [], store, planner: () => Decision.finish("a") });
  const state = await agent.run("x", { runId: "copy-1" });
  const loaded = (await store.load("copy-1")) as RunState;
  loaded.answer = "changed";
  state.answer = "changed too";
  assert.equal((await store.load("copy-1"))?.answer, "a");
});

test("a gate session's mark and its waiting requests survive the saved form, and a wrong mark is refused", () => {
  const json = JSON.parse(fixture("v1-awaiting-approval.json")) as Record<string, unknown>;
  const pending = json.pending as Record<string, unknown>;
  const second = { ...pending, step: 1, digest: "b".repeat(64), tool: "other" };
  const gate = { ...json, status: "running", gate: true, waiting: [pending, second] };
  const state = RunState.fromJSON(JSON.stringify(gate));
  assert.equal(state.gate, true);
  assert.deepEqual(
    state.waiting?.map((request) => request.tool),
    [pending.tool, "other"],
  );
  assert.deepEqual(state.toJSON(), asVersion2(gate));
  assert.deepEqual(state.copy().waiting, state.waiting);
  for (const bad of [
    { gate: false },
    { gate: "yes" },
    { waiting: [{ ...pending, digest: 7 }] },
    { waiting: pending },
  ]) {
    assert.throws(
      () => RunState.fromJSON({ ...json, ...bad }),
      (error: unknown) => isLeashError(error, "invalid_state"),
      JSON.stringify(Object.keys(bad)),
    );
  }
});
