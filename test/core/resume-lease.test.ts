// `resume(run, { lease })`: a caller that holds a run by a lease (a worker) passes it as an
// AbortSignal; once it aborts, the run's signal aborts, nothing more is recorded or saved, and the
// resume rejects with stale_state. A lease already lost claims nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, MemoryStore, Policy, isLeashError, tool, verifyAudit } from "../../src/index.js";
import type { Planner } from "../../src/index.js";

const planner: Planner = (state) =>
  state.steps.length === 0 ? Decision.act("save", { text: "x" }) : Decision.finish(state.steps[0]?.outcome ?? null);

/** A write that waits for its signal, and says when it started and when it was aborted. */
function signalledWrite() {
  let started: () => void = () => undefined;
  const hasStarted = new Promise<void>((resolve) => (started = resolve));
  const seen: string[] = [];
  const save = tool({
    name: "save",
    effect: "write",
    parameters: { type: "object", properties: { text: { type: "string" } } },
    execute: (_args, context) =>
      new Promise((_resolve, reject) => {
        seen.push("started");
        started();
        context.signal.addEventListener("abort", () => {
          seen.push("aborted");
          reject(new Error("aborted"));
        });
      }),
  });
  return { save, hasStarted, seen };
}

async function pausedRun(store: MemoryStore, save: ReturnType<typeof signalledWrite>["save"]) {
  const agent = new Agent({ tools: [save], planner, store, policy: new Policy({ allowEffects: ["read", "write"] }) });
  const paused = await agent.run("save it", { runId: "leased" });
  assert.equal(paused.status, "awaiting_approval");
  return { agent, approval: Approval.grant(paused.pending!.digest, "allen") };
}

test("a lease lost while the call runs aborts the tool's signal, writes nothing more, and the resume rejects with stale_state", async () => {
  const store = new MemoryStore();
  const write = signalledWrite();
  const { agent, approval } = await pausedRun(store, write.save);
  const lease = new AbortController();
  const resumed = agent.resume("leased", { approvals: [approval], lease: lease.signal });
  await write.hasStarted;
  const stored = (await store.load("leased"))!.toJSON();
  const trail = (await store.read("leased")).length;
  lease.abort();
  await assert.rejects(resumed, (error: unknown) => isLeashError(error, "stale_state"));
  assert.deepEqual(write.seen, ["started", "aborted"]);
  assert.deepEqual((await store.load("leased"))!.toJSON(), stored, "nothing was saved after the loss");
  assert.equal((await store.read("leased")).length, trail, "nothing was recorded after the loss");
  assert.deepEqual(verifyAudit(await store.read("leased")), []);
  // The run is left as after a crash, for whoever holds it now.
  const recovered = await agent.resume("leased");
  assert.equal(recovered.steps[0]?.outcome, "interrupted");
  assert.equal(recovered.status, "completed");
});

test("a resume whose lease is already lost claims nothing; a lease that is not an AbortSignal, or an unknown option, is refused", async () => {
  const store = new MemoryStore();
  const write = signalledWrite();
  const { agent, approval } = await pausedRun(store, write.save);
  const before = (await store.load("leased"))!.toJSON();
  const trail = (await store.read("leased")).length;
  const lost = new AbortController();
  lost.abort();
  await assert.rejects(agent.resume("leased", { approvals: [approval], lease: lost.signal }), (error: unknown) =>
    isLeashError(error, "stale_state"),
  );
  await assert.rejects(agent.resume("leased", { approvals: [approval], lease: "yes" as never }), (error: unknown) =>
    isLeashError(error, "invalid_option"),
  );
  // A misspelt option is refused, naming it and the known ones, rather than going unseen.
  await assert.rejects(
    agent.resume("leased", { approvals: [approval], leese: lost.signal } as never),
    (error: unknown) =>
      isLeashError(error, "invalid_option") && /`leese`.*approvals, lease/.test((error as Error).message),
  );
  assert.deepEqual((await store.load("leased"))!.toJSON(), before);
  assert.equal((await store.read("leased")).length, trail);
  assert.deepEqual(write.seen, []);
});
