// The claim of a stored run against the process driving it, with a sink separate from the store:
// whichever loses, the run never stays `running` with nobody driving it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Approval, Decision, MemoryAuditSink, Policy, tool, verifyAudit } from "../../src/index.js";
import type { Approver, AuditRecord, AuditSink } from "../../src/index.js";
import { refusedWith, withStore } from "./contract-fixtures.js";
import type { MakeStore } from "./contract-fixtures.js";

/** A promise and the function that settles it. */
function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** The claim race tests of the store contract, defined inside the caller's `describe`. */
export function claimRaceContract(makeStore: MakeStore): void {
  test("a cancel whose claim wins while the driving agent appends first ends the run stopped, and the driver writes nothing more", () =>
    withStore(makeStore, async (store) => {
      const runId = "claim-race";
      const inner = new MemoryAuditSink();
      const asked = signal();
      const grant = signal();
      const driverAppended = signal();
      let released = false;
      let paid = 0;
      // The one sink both agents share: it holds the cancel's first append until the driver has
      // appended its own records behind the cancel's claim.
      const sink: AuditSink = {
        read: (id) => inner.read(id),
        async append(records: readonly AuditRecord[]) {
          const isCancel = records.some((record) => record.event === "run_resumed");
          if (isCancel && !released) {
            released = true;
            grant.resolve();
            await driverAppended.promise;
          }
          await Promise.resolve(inner.append(records));
          if (!isCancel && released) driverAppended.resolve();
        },
      };
      const pay = tool({ name: "pay", effect: "write", execute: () => (paid += 1) });
      const agent = (approver?: Approver) =>
        new Agent({
          tools: [pay],
          store,
          audit: sink,
          policy: new Policy({ allowEffects: ["read", "write"] }),
          ...(approver === undefined ? {} : { approver }),
          planner: (state) => (state.steps.length === 0 ? Decision.act("pay", {}) : Decision.finish("ok")),
        });
      const driver = agent(async (request) => {
        asked.resolve();
        await grant.promise;
        return Approval.grant(request.digest, "allen");
      });
      const driven = driver.run("pay", { runId });
      // The driver's end also lets the held append go, should it never append.
      void driven.then(
        () => driverAppended.resolve(),
        () => driverAppended.resolve(),
      );
      await asked.promise;
      const cancelled = await agent().cancel(runId);
      assert.equal(cancelled.status, "stopped");
      assert.equal(cancelled.stopReason, "cancelled");
      await assert.rejects(driven, refusedWith("stale_state"));
      assert.equal(paid, 0);
      const stored = await store.load(runId);
      assert.equal(stored?.status, "stopped");
      const trail = await inner.read(runId);
      assert.deepEqual(verifyAudit(trail), []);
      assert.equal(trail.at(-1)?.event, "run_ended");
      assert.deepEqual(stored?.auditHead, { seq: trail.at(-1)?.seq, digest: trail.at(-1)?.digest });
    }));
}
