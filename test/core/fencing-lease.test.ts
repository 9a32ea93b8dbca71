// A worker that takes over a lapsed lease gives its call a larger fencing token than the stalled
// worker's call, so a downstream system that keeps the largest token per run refuses the late call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, Policy } from "../../src/index.js";
import type { AuditSink, RunStore, ToolContext } from "../../src/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { Worker } from "../../src/worker/index.js";
import { approvedRuns, recordingLogger } from "../worker/worker-helpers.js";
import { writeTextTool } from "../helpers/text-tool.js";
import { dropSchema, freshSchemaName, withPostgres } from "../postgres/database.js";

/** An idempotent write whose calls each wait until released; `starts` resolves per call with its context. */
function heldWrite() {
  const contexts: ToolContext[] = [];
  const waiters: ((context: ToolContext) => void)[] = [];
  const releases: (() => void)[] = [];
  const write = writeTextTool({
    name: "save",
    idempotent: true,
    onWrite: (_text, context) => {
      contexts.push(context);
      waiters.shift()?.(context);
      return new Promise<string>((resolve) => releases.push(() => resolve("saved")));
    },
  });
  const nextStart = () => new Promise<ToolContext>((resolve) => waiters.push(resolve));
  return { write, contexts, nextStart, releaseAll: () => releases.splice(0).forEach((release) => release()) };
}

function agentOn(store: RunStore & AuditSink, write: ReturnType<typeof heldWrite>["write"]): Agent {
  return new Agent({
    tools: [write],
    planner: (state) =>
      state.steps.length === 0
        ? Decision.act("save", { text: "the report" })
        : Decision.finish(state.steps[0]?.outcome ?? null),
    policy: new Policy({ allowEffects: ["read", "write"] }),
    store,
    audit: store,
  });
}

withPostgres("fencing tokens across a lapsed lease", (url) => {
  test("a worker that takes over a lapsed lease calls with a larger fencing token than the stalled worker", async () => {
    const schema = freshSchemaName();
    const store = new PostgresStore({ connectionString: url, schema });
    // Once its call has started, the stalled worker's store cannot renew its lease: as a worker paused
    // past its lease would be. (Earlier, a worker that lost its lease would stop the run before the call.)
    let stalling = false;
    const stalledStore = new Proxy(store, {
      get(target, key, receiver) {
        if (key === "renewLease" && stalling) return () => Promise.resolve([]);
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === "function" ? (value as () => unknown).bind(target) : value;
      },
    });
    const first = heldWrite();
    const second = heldWrite();
    try {
      const [runId] = await approvedRuns(agentOn(store, first.write), store, 1, "fenced");
      const stalled = new Worker({
        agent: agentOn(store, first.write),
        store: stalledStore,
        leaseMs: 200,
        logger: recordingLogger(),
      });
      const stalledStart = first.nextStart();
      const stalledPass = stalled.runOnce();
      const stalledCall = await stalledStart;
      stalling = true;

      const taker = new Worker({ agent: agentOn(store, second.write), store, logger: recordingLogger() });
      const takerStart = second.nextStart();
      // Poll until the lease has lapsed and the run is taken over, with a generous deadline.
      const deadline = Date.now() + 30_000;
      let taken = false;
      const passes: Promise<number>[] = [];
      while (!taken) {
        assert.ok(Date.now() < deadline, "the lapsed lease was never taken over");
        const pass = taker.runOnce();
        passes.push(pass);
        taken = await Promise.race([takerStart.then(() => true), pass.then(() => false)]);
        if (!taken) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const takerCall = await takerStart;
      assert.equal(takerCall.runId, runId);
      assert.equal(takerCall.idempotencyKey, stalledCall.idempotencyKey);
      assert.ok(
        takerCall.fencingToken > stalledCall.fencingToken,
        `taker ${takerCall.fencingToken} must exceed stalled ${stalledCall.fencingToken}`,
      );
      second.releaseAll();
      await Promise.all(passes);
      first.releaseAll();
      await stalledPass;
      const state = await store.load(runId!);
      assert.equal(state?.status, "completed");
    } finally {
      first.releaseAll();
      second.releaseAll();
      await store.close();
      await dropSchema(url, schema);
    }
  });
});
