import assert from "node:assert/strict";
import { hostname } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { Approval, tool } from "../../src/index.js";
import type { RunStore } from "../../src/index.js";
import { MemoryStore } from "../../src/stores/memory-store.js";
import { Gateway } from "../../src/gateway/gateway.js";
import type { GatewayConfig } from "../../src/gateway/gateway-config.js";
import { openGatewayClaims, pidNamespace } from "../../src/gateway/gateway-claims.js";
import { tempFolder } from "../mcp/support.js";
import { textOf } from "./support.js";

const config: GatewayConfig = {
  servers: [],
  policy: { grantedScopes: ["s"], allowEffects: ["read", "write"], approvers: ["alice"] },
  limits: {},
  waitMs: 60_000,
  pollMs: 1_000,
  allowedOrigins: [],
  maxMessageBytes: 1 << 20,
  shutdownMs: 1_000,
  sessionIdleMs: 1_800_000,
  elicitationApproves: false,
};

/** A view of the store whose listings leave out some runs: a gateway that looked before they were saved. */
function staleView(store: MemoryStore, hidden: Set<string>): MemoryStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === "list")
        return async (options: Parameters<RunStore["list"]>[0]) =>
          (await target.list(options)).filter((state) => !hidden.has(state.runId));
      if (property === "summaries")
        return async (options: Parameters<RunStore["list"]>[0]) => {
          const page = await target.summaries(options);
          return { ...page, runs: page.runs.filter((run) => !hidden.has(run.runId)) };
        };
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

test("two gateways that each started a run of one call, both approved: they settle on one run before resuming, and it runs once", async () => {
  const store = new MemoryStore();
  let runs = 0;
  const hold = tool({
    name: "hold",
    description: "Counts its runs.",
    effect: "write",
    scopes: ["s"],
    parameters: { type: "object", properties: { n: { type: "number" } } },
    execute: () => {
      runs += 1;
      return "held";
    },
  });
  const db = path.join(await tempFolder(), "claims.db");
  const location = { kind: "sqlite" as const, db, label: db, args: "" };
  const me = (driver: string) => ({ driver, host: hostname(), pidns: pidNamespace(), pid: process.pid });
  const [claimsOne, claimsTwo] = [
    await openGatewayClaims(location, { me: me("one") }),
    await openGatewayClaims(location, { me: me("two") }),
  ];
  await claimsOne.start();
  await claimsTwo.start();
  const hidden = new Set<string>();
  const one = new Gateway(config, store, [hold], [], "", undefined, claimsOne);
  const two = new Gateway(config, staleView(store, hidden), [hold], [], "", undefined, claimsTwo);
  try {
    const named = (): { progress: (line: string) => void; run: Promise<string> } => {
      let resolve!: (runId: string) => void;
      const run = new Promise<string>((done) => (resolve = done));
      return { progress: (line) => resolve(/leash approve (\S+)/.exec(line)?.[1] ?? ""), run };
    };
    const [first, second] = [named(), named()];
    const callOne = one.call("hold", { n: 1 }, { progress: first.progress });
    const runA = await Promise.race([first.run, callOne.then((result) => assert.fail(textOf(result)))]);
    // The second gateway looked before the first one's run was saved: it starts a run of its own.
    hidden.add(runA);
    const callTwo = two.call("hold", { n: 1 }, { progress: second.progress });
    const runB = await second.run;
    assert.notEqual(runA, runB);
    // The person approves both runs they were shown.
    const approve = async (runId: string): Promise<void> => {
      const state = await store.load(runId);
      if (state?.status !== "awaiting_approval" || state.pending === undefined) return;
      await store.answer(runId, new Approval(state.pending.digest, { granted: true, approver: "alice" }));
    };
    await approve(runA);
    hidden.clear();
    await approve(runB).catch(() => undefined);
    const results = await Promise.all([callOne, callTwo]);
    for (const result of results) assert.equal(textOf(result), "held");
    assert.equal(runs, 1);
    const statuses = (await store.list({})).map((state) => state.status).sort();
    assert.deepEqual(statuses, ["completed", "stopped"]);
  } finally {
    await claimsOne.close(true);
    await claimsTwo.close(true);
  }
});
