// Standing grants at the approval gate, in every store (API.md section 16): a call a grant matches
// runs without anyone asked, one use each, and a call no grant matches pauses as before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Decision, MemoryAuditSink, Policy, stateAgreesWithTrail, tool, verifyAudit } from "../../src/index.js";
import type { AnswerOrigin, ApprovalRequest, AuditSink, GrantOptions, RunStore } from "../../src/index.js";
import { withStore } from "./contract-fixtures.js";
import type { MakeStore } from "./contract-fixtures.js";

type GrantStore = RunStore & AuditSink & Required<Pick<RunStore, "grant" | "revokeGrant" | "grants">>;

interface PayerOptions {
  paid: number[];
  amount?: number;
  clock?: () => Date;
  name?: string;
  scopes?: string[];
  mayApprove?: (approver: string, request: ApprovalRequest, origin?: AnswerOrigin) => boolean;
  audit?: AuditSink;
}

/** An agent whose one call pays `amount` (a write that needs approval), then finishes with its outcome. */
function payer(store: RunStore & AuditSink, options: PayerOptions): Agent {
  const scopes = options.scopes ?? [];
  const pay = tool<{ amount: number }>({
    name: "pay",
    effect: "write",
    scopes,
    parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
    execute: ({ amount }) => {
      options.paid.push(amount);
      return "paid";
    },
  });
  return new Agent({
    name: options.name ?? "payer",
    tools: [pay],
    store,
    audit: options.audit ?? store,
    policy: new Policy({
      allowEffects: ["read", "write"],
      grantedScopes: scopes,
      ...(options.mayApprove === undefined ? {} : { mayApprove: options.mayApprove }),
    }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    planner: (state) =>
      state.steps.length === 0
        ? Decision.act("pay", { amount: options.amount ?? 20 })
        : Decision.finish(state.steps.at(-1)?.outcome ?? null),
  });
}

const GRANT: GrantOptions = { tool: "pay", maxUses: 2, by: "noor" };

/** The grant tests of the approval gate, on a fresh store each. */
export function grantsGateContract(makeStore: MakeStore): void {
  const withGrants = (body: (store: GrantStore) => Promise<void>) =>
    withStore(makeStore, (store) => body(store as GrantStore));

  test("a call a standing grant matches runs without a pause, recorded as the grant's numbered use, and the state agrees with the trail", () =>
    withGrants(async (store) => {
      const grant = await store.grant(GRANT);
      const paid: number[] = [];
      const agent = payer(store, { paid });
      const first = await agent.run("pay", { runId: "g1" });
      const second = await agent.run("pay", { runId: "g2" });
      const third = await agent.run("pay", { runId: "g3" });
      assert.deepEqual([first.status, second.status, third.status], ["completed", "completed", "awaiting_approval"]);
      assert.deepEqual(paid, [20, 20]);
      assert.equal((await store.grants())[0]?.uses, 2);
      for (const [runId, use] of [
        ["g1", 1],
        ["g2", 2],
      ] as const) {
        const trail = await store.read(runId);
        assert.deepEqual(verifyAudit(trail), []);
        assert.equal(trail.filter((record) => record.event === "approval_requested").length, 0);
        const answered = trail.filter((record) => record.event === "approval_answered");
        assert.equal(answered.length, 1);
        const data = answered[0]!.data as Record<string, unknown>;
        assert.equal(data.granted, true);
        assert.equal(data.approver, "noor");
        assert.deepEqual(data.origin, { via: "grant", grant: grant.id, use });
        const started = trail.findIndex((record) => record.event === "tool_started");
        assert.ok(started > trail.indexOf(answered[0]!));
        const state = await store.load(runId);
        assert.deepEqual(stateAgreesWithTrail(state!, trail).problems, []);
      }
      assert.deepEqual(verifyAudit(await store.read()), []);
    }));

  test("a grant past its expiry by the agent's clock, or revoked, approves nothing", () =>
    withGrants(async (store) => {
      await store.grant({ ...GRANT, expiresAt: "2030-01-01T00:00:00.000Z" });
      const paid: number[] = [];
      const late = await payer(store, { paid, clock: () => new Date("2030-01-01T00:00:00.001Z") }).run("pay");
      assert.equal(late.status, "awaiting_approval");
      const early = await payer(store, { paid, clock: () => new Date("2029-12-31T23:59:59.000Z") }).run("pay");
      assert.equal(early.status, "completed");
      const other = await store.grant({ ...GRANT, tool: "pay", by: "ada" });
      await store.revokeGrant(other.id, { by: "ada" });
      const revoked = await payer(store, { paid, clock: () => new Date("2031-01-01T00:00:00.000Z") }).run("pay");
      assert.equal(revoked.status, "awaiting_approval");
      assert.deepEqual(paid, [20]);
    }));

  test("a call whose arguments do not satisfy the grant's schema, or of another principal or agent, pauses", () =>
    withGrants(async (store) => {
      await store.grant({
        ...GRANT,
        maxUses: 10,
        args: { type: "object", properties: { amount: { type: "number", maximum: 50 } } },
        principal: "mia",
        agent: "payer",
      });
      const paid: number[] = [];
      const status = async (options: Partial<PayerOptions>, principal?: string) =>
        (await payer(store, { paid, ...options }).run("pay", principal === undefined ? {} : { principal })).status;
      assert.equal(await status({ amount: 60 }, "mia"), "awaiting_approval");
      assert.equal(await status({ amount: 40 }, "max"), "awaiting_approval");
      assert.equal(await status({ amount: 40 }), "awaiting_approval");
      assert.equal(await status({ amount: 40, name: "other" }, "mia"), "awaiting_approval");
      assert.equal(await status({ amount: 50 }, "mia"), "completed");
      assert.deepEqual(paid, [50]);
      assert.equal((await store.grants())[0]?.uses, 1);
    }));

  test("policy.mayApprove judges the giver for the very request, told the grant and the use, and a refused giver's grant is not used", () =>
    withGrants(async (store) => {
      const refused = await store.grant({ ...GRANT, by: "intern" });
      const allowed = await store.grant(GRANT);
      const seen: unknown[] = [];
      const paid: number[] = [];
      const agent = payer(store, {
        paid,
        mayApprove: (approver, request, origin) => {
          seen.push({ approver, tool: request.kind === "call" ? request.tool : request.limit, origin });
          return approver !== "intern";
        },
      });
      assert.equal((await agent.run("pay")).status, "completed");
      assert.deepEqual(seen, [
        { approver: "intern", tool: "pay", origin: { via: "grant", grant: refused.id, use: 1 } },
        { approver: "noor", tool: "pay", origin: { via: "grant", grant: allowed.id, use: 1 } },
      ]);
      const after = await store.grants();
      assert.deepEqual(
        after.map((grant) => grant.uses),
        [0, 1],
      );
    }));

  test("a grant first used by one declaration of a tool matches no other: a redefined tool pauses", () =>
    withGrants(async (store) => {
      await store.grant({ ...GRANT, maxUses: 5 });
      const paid: number[] = [];
      assert.equal((await payer(store, { paid }).run("pay")).status, "completed");
      assert.equal((await payer(store, { paid, scopes: ["payments"] }).run("pay")).status, "awaiting_approval");
      assert.equal((await payer(store, { paid }).run("pay")).status, "completed");
      assert.deepEqual(paid, [20, 20]);
    }));

  test("a run paused before a grant existed takes it at its next resume with no answers, and a resume with none writes nothing", () =>
    withGrants(async (store) => {
      const paid: number[] = [];
      const agent = payer(store, { paid });
      const paused = await agent.run("pay", { runId: "later" });
      assert.equal(paused.status, "awaiting_approval");
      const before = await store.read("later");
      const still = await agent.resume("later");
      assert.equal(still.status, "awaiting_approval");
      assert.deepEqual(await store.read("later"), before);
      const grant = await store.grant(GRANT);
      const resumed = await agent.resume("later");
      assert.equal(resumed.status, "completed");
      assert.deepEqual(paid, [20]);
      const trail = await store.read("later");
      assert.deepEqual(verifyAudit(trail), []);
      const answered = trail.filter((record) => record.event === "approval_answered");
      assert.deepEqual((answered[0]?.data as Record<string, unknown>).origin, {
        via: "grant",
        grant: grant.id,
        use: 1,
      });
      assert.deepEqual(stateAgreesWithTrail((await store.load("later"))!, trail).problems, []);
    }));

  test("with a sink separate from the store, the use is its own transaction before the call and the sink records it", () =>
    withGrants(async (store) => {
      const grant = await store.grant({ ...GRANT, maxUses: 1 });
      const audit = new MemoryAuditSink();
      const paid: number[] = [];
      const agent = payer(store, { paid, audit });
      assert.equal((await agent.run("pay", { runId: "s1" })).status, "completed");
      assert.equal((await agent.run("pay", { runId: "s2" })).status, "awaiting_approval");
      assert.deepEqual(paid, [20]);
      const trail = await audit.read("s1");
      assert.deepEqual(verifyAudit(trail), []);
      const answered = trail.find((record) => record.event === "approval_answered");
      assert.deepEqual((answered?.data as Record<string, unknown>).origin, { via: "grant", grant: grant.id, use: 1 });
      assert.deepEqual(stateAgreesWithTrail((await store.load("s1"))!, trail).problems, []);
      assert.equal((await store.grants())[0]?.uses, 1);
    }));
}
