// What a save writes must not grow with the run: a long run costs linear time only if a save after
// step N writes O(1) text. Every store turns a state into text through RunState's public methods
// (`toJSONText`, `headerText`, `stepText`); the test counts the characters they give during one save.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RunState } from "../../src/index.js";
import type { Step } from "../../src/index.js";
import { stateOf, withStore } from "./contract-fixtures.js";
import type { MakeStore } from "./contract-fixtures.js";

type TextMethod = "toJSONText" | "headerText" | "stepText";
const METHODS: readonly TextMethod[] = ["toJSONText", "headerText", "stepText"];

/** Runs `body`, counting the characters of text RunState's text methods give meanwhile. */
async function textWritten(body: () => Promise<void>): Promise<{ chars: number; calls: Record<TextMethod, number> }> {
  const prototype = RunState.prototype as unknown as Record<TextMethod, (...args: unknown[]) => string>;
  const originals = METHODS.map((method) => [method, prototype[method]] as const);
  const calls: Record<TextMethod, number> = { toJSONText: 0, headerText: 0, stepText: 0 };
  let chars = 0;
  for (const [method, original] of originals) {
    prototype[method] = function (this: RunState, ...args: unknown[]): string {
      const text = original.apply(this, args);
      calls[method] += 1;
      chars += text.length;
      return text;
    };
  }
  try {
    await body();
  } finally {
    for (const [method, original] of originals) prototype[method] = original;
  }
  return { chars, calls };
}

/** A settled step of the same size at every index below 10,000. */
function stepOf(index: number): Step {
  return {
    index,
    decision: { type: "act", tool: "noop", args: { n: String(index).padStart(4, "0") } },
    outcome: "executed",
    result: "ok",
    starts: 1,
  };
}

/** A running state at `revision` with `count` steps, each a call of `noop` that ran. */
function stateWithSteps(runId: string, revision: number, count: number): RunState {
  const state = stateOf(runId, { revision });
  state.steps = Array.from({ length: count }, (_, index) => stepOf(index));
  state.toolCalls = count;
  state.ran = state.steps.map(() => "noop");
  return state;
}

/** The contract's test that a save after step N writes text that does not grow with N. */
export function saveSizeContract(makeStore: MakeStore): void {
  test("a save after step N writes text that does not grow with N: a save at step 1,000 writes what one at step 100 does", () =>
    withStore(makeStore, async (store) => {
      const perSave = async (runId: string, steps: number) => {
        await store.create(stateOf(runId));
        // The save that brings the run to N - 1 steps may write them all; the next writes one more.
        await store.save(stateWithSteps(runId, 2, steps - 1), { expectedRevision: 1 });
        const last = stateWithSteps(runId, 3, steps);
        const written = await textWritten(() => store.save(last, { expectedRevision: 2 }));
        const loaded = await store.load(runId);
        assert.deepEqual(loaded?.toJSON(), last.toJSON());
        return written;
      };
      const short = await perSave("short", 100);
      const long = await perSave("long", 1_000);
      assert.ok(long.calls.stepText <= 2, `a save of one more step wrote ${long.calls.stepText} steps`);
      // Only the figures of the header (the revision, the counts) may be longer.
      assert.ok(
        long.chars <= short.chars + 16,
        `a save at step 1,000 wrote ${long.chars} characters, at step 100 ${short.chars}`,
      );
    }));
}
