// A guard that could silently not guard is refused when the agent is built.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, isLeashError } from "../../src/index.js";
import type { Guard } from "../../src/index.js";

const planner = () => Decision.finish("ok");

function refusedNaming(...words: string[]): (error: unknown) => boolean {
  return (error) => {
    assert.ok(isLeashError(error, "invalid_option"), String(error));
    for (const word of words) assert.ok((error as Error).message.includes(word), (error as Error).message);
    return true;
  };
}

for (const hook of ["beforeModel", "afterModel", "beforeTool", "afterTool"] as const) {
  test(`a guard whose ${hook} is present but not a function is refused, naming the guard and the hook`, () => {
    const guard = { name: "Shop rules", [hook]: "block everything" } as unknown as Guard;
    assert.throws(() => new Agent({ tools: [], planner, guards: [guard] }), refusedNaming("Shop rules", hook));
  });
}

test("a guard without a string name is refused", () => {
  for (const name of [undefined, 7, ""]) {
    const guard = { name, beforeTool: () => ({ type: "allow" }) } as unknown as Guard;
    assert.throws(() => new Agent({ tools: [], planner, guards: [guard] }), refusedNaming("name"));
  }
});

test("a guard whose hooks are functions, or absent, is accepted", () => {
  const guard: Guard = { name: "Shop rules", beforeTool: () => ({ type: "allow" }), afterModel: undefined };
  assert.doesNotThrow(() => new Agent({ tools: [], planner, guards: [guard] }));
});
