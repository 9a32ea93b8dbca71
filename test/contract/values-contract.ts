// The part of the store contract about odd values: whatever a tool, a planner or a guard gives back,
// what the store holds can be loaded and listed again, and the trail verifies.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, RunState, isLeashError, tool, verifyAudit } from "../../src/index.js";
import { modelPlanner } from "../../src/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import type { Json, ModelClient, Planner } from "../../src/index.js";
import { withStore } from "./contract-fixtures.js";
import type { MakeStore } from "./contract-fixtures.js";

function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

const actThenFinish =
  (args: unknown = {}): Planner =>
  (state) =>
    state.steps.length === 0 ? Decision.act("odd", args) : Decision.finish(state.steps[0]?.outcome ?? null);

/** The values tests of the store contract, defined inside the caller's `describe`. */
export function valuesContract(makeStore: MakeStore): void {
  test("a tool result nested 2,500 deep is a tool_error step (result_too_deep); the run completes, loads and lists", () =>
    withStore(makeStore, async (store) => {
      const odd = tool({ name: "odd", execute: () => nested(2_500) });
      const agent = new Agent({ tools: [odd], planner: actThenFinish(), store, audit: store });
      const state = await agent.run("go deep", { runId: "deep-result" });
      assert.equal(state.status, "completed");
      assert.equal(state.steps[0]?.outcome, "tool_error");
      assert.equal(state.steps[0]?.error?.code, "result_too_deep");
      assert.equal(state.steps[0]?.result, null);
      const loaded = await store.load("deep-result");
      assert.deepEqual(loaded?.toJSON(), state.toJSON());
      assert.deepEqual(
        (await store.list()).map((listed) => listed.runId),
        ["deep-result"],
      );
      assert.deepEqual(verifyAudit(await store.read()), []);
    }));

  test("arguments nested 2,500 deep are an invalid_arguments step; the tool never runs and the run loads", () =>
    withStore(makeStore, async (store) => {
      let calls = 0;
      const odd = tool({
        name: "odd",
        execute: () => {
          calls += 1;
          return 1;
        },
      });
      const agent = new Agent({ tools: [odd], planner: actThenFinish({ a: nested(2_500) }), store, audit: store });
      const state = await agent.run("deep arguments", { runId: "deep-args" });
      assert.equal(calls, 0);
      assert.equal(state.status, "completed");
      assert.equal(state.steps[0]?.outcome, "invalid_arguments");
      assert.equal(state.steps[0]?.error?.code, "arguments_too_deep");
      assert.match(state.steps[0]?.error?.message ?? "", /256/);
      assert.deepEqual((await store.load("deep-args"))?.toJSON(), state.toJSON());
      assert.equal((await store.list()).length, 1);
      assert.deepEqual(verifyAudit(await store.read()), []);
    }));

  test("odd thrown values and text with lone surrogates end in a stored state that loads, never a raw error", () =>
    withStore(makeStore, async (store) => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      const symbolMessage = new Error("x");
      Object.defineProperty(symbolMessage, "message", { value: Symbol("odd") });
      const throwingMessage = new Error("x");
      Object.defineProperty(throwingMessage, "message", {
        get() {
          throw new Error("no");
        },
      });
      const unprintable = {
        toJSON() {
          throw new Error("no JSON");
        },
        toString() {
          throw new Error("no text");
        },
      };
      const thrown: unknown[] = [proxy, symbolMessage, throwingMessage, unprintable, new Error("lone \ud800")];
      for (const [index, value] of thrown.entries()) {
        const odd = tool({
          name: "odd",
          execute: () => {
            throw value;
          },
        });
        const agent = new Agent({ tools: [odd], planner: actThenFinish(), store, audit: store });
        const runId = `odd-${index}`;
        const state = await agent.run("throw oddly", { runId });
        assert.equal(state.status, "completed", runId);
        assert.equal(state.steps[0]?.outcome, "tool_error");
        assert.ok(state.steps[0]?.error?.message.isWellFormed());
        const loaded = await store.load(runId);
        assert.ok(loaded instanceof RunState);
        assert.deepEqual(loaded.toJSON(), state.toJSON());
      }
      assert.equal((await store.list()).length, thrown.length);
      assert.deepEqual(verifyAudit(await store.read()), []);
    }));

  test("a model price over Number.MAX_SAFE_INTEGER is refused (invalid_option); no run is left running and each loads", () =>
    withStore(makeStore, async (store) => {
      const huge = { input: 1e308, output: 1e308 };
      const refused = (error: unknown): boolean => isLeashError(error, "invalid_option");
      assert.throws(() => modelPlanner({ model: scriptedModel(), price: huge }), refused);
      assert.throws(() => modelPlanner({ model: scriptedModel({ price: huge }) }), refused);
      const caught: unknown[] = [];
      const calling =
        (client: ModelClient, options: { price?: { input: number; output: number } }): Planner =>
        async (state, _tools, context) => {
          if (state.steps.length === 0) {
            for (let call = 0; call < 2; call++) {
              await context
                .callModel(client, { system: "", messages: [{ role: "user", content: "x" }], tools: [] }, options)
                .catch((error: unknown) => caught.push(error));
            }
          }
          return Decision.finish("ok");
        };
      const planners: Planner[] = [
        calling(scriptedModel({ price: huge }, says.text("a"), says.text("b")), {}),
        calling(scriptedModel(says.text("a"), says.text("b")), { price: huge }),
      ];
      for (const [index, planner] of planners.entries()) {
        const runId = `price-${index}`;
        const state = await new Agent({ tools: [], planner, store, audit: store }).run("g", { runId });
        assert.equal(state.status, "completed", runId);
        assert.ok(Number.isFinite(state.usage.cost), runId);
        const loaded = await store.load(runId);
        assert.deepEqual(loaded?.toJSON(), state.toJSON(), runId);
      }
      assert.equal(caught.length, 4);
      assert.ok(caught.every(refused));
      assert.deepEqual(verifyAudit(await store.read()), []);
    }));

  test("arguments, results, answers and model tool-call arguments 254..256 deep are carried; 257 and 258 are refused as steps", () =>
    withStore(makeStore, async (store) => {
      for (const depth of [254, 255, 256, 257, 258]) {
        const fits = depth <= 256;
        const value = nested(depth);
        const echo = tool({
          name: "odd",
          parameters: { type: "object" },
          execute: (args) => (args as { a?: unknown }).a ?? value,
        });
        const agent = (planner: Planner): Agent => new Agent({ tools: [echo], planner, store, audit: store });
        const planners: [string, Planner][] = [
          ["args", actThenFinish({ a: nested(depth - 1) })],
          ["result", actThenFinish()],
          [
            "model",
            modelPlanner({
              model: scriptedModel(says.tool("odd", { a: nested(depth - 1) as Json }), says.text("done")),
            }),
          ],
        ];
        for (const [kind, planner] of planners) {
          const runId = `${kind}-${depth}`;
          const state = await agent(planner).run("deep", { runId });
          assert.equal(state.status, "completed", runId);
          const step = state.steps[0];
          if (fits) assert.equal(step?.outcome, "executed", runId);
          else assert.match(step?.error?.code ?? "", /_too_deep$/, runId);
          assert.deepEqual((await store.load(runId))?.toJSON(), state.toJSON(), runId);
        }
        const runId = `answer-${depth}`;
        const state = await agent(() => Decision.finish(value)).run("deep answer", { runId });
        if (fits) assert.equal(state.status, "completed", runId);
        else assert.equal(state.failure?.code, "invalid_decision", runId);
        assert.deepEqual((await store.load(runId))?.toJSON(), state.toJSON(), runId);
      }
      assert.deepEqual(verifyAudit(await store.read()), []);
    }));
}
