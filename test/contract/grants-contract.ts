// Standing grants in every store (API.md section 16): giving, revoking and listing them, the records
// of their own chains, the refusals of bad options (nothing stored), and the compare-and-set of a use.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isLeashError, verifyAudit } from "../../src/index.js";
import type { AuditSink, GrantInfo, RunStore } from "../../src/index.js";
import type { GrantUse } from "../../src/stores/grant-info.js";
import { stateOf, withStore } from "./contract-fixtures.js";
import type { MakeStore } from "./contract-fixtures.js";

type GrantStore = RunStore & AuditSink & Required<Pick<RunStore, "grant" | "revokeGrant" | "grants" | "takeGrantUse">>;

const refused = (code: string, option?: string) => (error: unknown) =>
  isLeashError(error) && error.code === code && (option === undefined || error.message.includes(`\`${option}\``));

/** The grant tests, on a fresh store each. */
export function grantsContract(makeStore: MakeStore): void {
  const withGrants = (body: (store: GrantStore) => Promise<void>) =>
    withStore(makeStore, (store) => body(store as GrantStore));

  test("a grant is kept with a random id and no uses, listed oldest first, and recorded as grant_given", () =>
    withGrants(async (store) => {
      const first = await store.grant(
        {
          tool: "pay",
          args: { type: "object", properties: { amount: { type: "number", maximum: 50 } } },
          principal: "mia",
          agent: "payer",
          maxUses: 3,
          expiresAt: "2099-12-02T00:00:00Z",
          by: "noor",
          note: "month-end runs",
        },
        { origin: { via: "cli", user: "noor", host: "desk" } },
      );
      const second = await store.grant({ tool: "refund", maxUses: 1, by: "ada" });
      assert.match(first.id, /^[0-9a-f]{32}$/);
      assert.notEqual(first.id, second.id);
      assert.equal(first.uses, 0);
      assert.equal(first.expiresAt, "2099-12-02T00:00:00.000Z");
      assert.ok(!Number.isNaN(Date.parse(first.givenAt)));
      assert.deepEqual(await store.grants(), [first, second]);
      assert.deepEqual(await store.grants({ active: true }), [first, second]);
      const records = await store.read(`grant:${first.id}`);
      assert.deepEqual(
        records.map((record) => record.event),
        ["grant_given"],
      );
      assert.deepEqual(records[0]!.data, { ...first, origin: { via: "cli", user: "noor", host: "desk" } });
      assert.deepEqual(verifyAudit(await store.read()), []);
    }));

  test("bad grant options are refused with invalid_option naming the option, and nothing is stored", () =>
    withGrants(async (store) => {
      const good = { tool: "pay", maxUses: 2, by: "noor" };
      const cases: [Record<string, unknown>, string][] = [
        [{ ...good, tool: "" }, "tool"],
        [{ maxUses: 2, by: "noor" }, "tool"],
        [{ ...good, by: " " }, "by"],
        [{ ...good, maxUses: 0 }, "maxUses"],
        [{ ...good, maxUses: 1.5 }, "maxUses"],
        [{ ...good, maxUses: 1_000_001 }, "maxUses"],
        [{ ...good, expiresAt: "tomorrow" }, "expiresAt"],
        [{ ...good, expiresAt: "2026-02-30T00:00:00Z" }, "expiresAt"],
        [{ ...good, args: { type: "no such type" } }, "args"],
        [{ ...good, principal: 7 }, "principal"],
        [{ ...good, uses: 1 }, "uses"],
      ];
      for (const [options, option] of cases) {
        await assert.rejects(store.grant(options as never), refused("invalid_option", option), option);
      }
      await assert.rejects(store.grant(good, { origin: { via: "" } }), refused("invalid_option", "origin"));
      await assert.rejects(store.grant(good, { by: "x" } as never), refused("invalid_option"));
      assert.deepEqual(await store.grants(), []);
      assert.deepEqual(await store.read(), []);
    }));

  test("a revoked grant is recorded as grant_revoked, listed as inactive, and revoking it again changes nothing", () =>
    withGrants(async (store) => {
      const grant = await store.grant({ tool: "pay", maxUses: 2, by: "noor" });
      const revoked = await store.revokeGrant(grant.id, { by: "ada", note: "too broad" });
      assert.equal(revoked.revoked?.by, "ada");
      assert.equal(revoked.revoked?.note, "too broad");
      assert.deepEqual(await store.revokeGrant(grant.id, { by: "zed" }), revoked);
      assert.deepEqual(await store.grants(), [revoked]);
      assert.deepEqual(await store.grants({ active: true }), []);
      assert.deepEqual(await store.grants({ active: false }), [revoked]);
      const records = await store.read(`grant:${grant.id}`);
      assert.deepEqual(
        records.map((record) => [record.event, record.data]),
        [
          ["grant_given", grant],
          ["grant_revoked", { grant: grant.id, ...revoked.revoked }],
        ],
      );
      assert.deepEqual(verifyAudit(records), []);
      await assert.rejects(store.revokeGrant("nope", { by: "ada" }), refused("grant_not_found"));
      await assert.rejects(store.revokeGrant(grant.id, { by: "" }), refused("invalid_option", "by"));
    }));

  test("a grant past its expiry is not active", () =>
    withGrants(async (store) => {
      const old = await store.grant({ tool: "pay", maxUses: 2, by: "noor", expiresAt: "2001-01-01T00:00:00.000Z" });
      assert.deepEqual(await store.grants({ active: true }), []);
      assert.deepEqual(await store.grants({ active: false }), [old]);
    }));

  test("a use is a compare-and-set: each number once, never past maxUses, and only for the declaration it was first used with", () =>
    withGrants(async (store) => {
      const grant = await store.grant({ tool: "pay", maxUses: 2, by: "noor" });
      const use = (n: number, toolDigest = "d1"): GrantUse => ({ grant: grant.id, use: n, toolDigest });
      const reason = (why: string) => (error: unknown) =>
        isLeashError(error, "stale_state") && error.details.reason === why;
      await assert.rejects(store.takeGrantUse(use(2)), reason("moved"));
      await store.takeGrantUse(use(1));
      await assert.rejects(store.takeGrantUse(use(1)), reason("moved"));
      await assert.rejects(store.takeGrantUse(use(2, "d2")), reason("redefined"));
      await store.takeGrantUse(use(2));
      await assert.rejects(store.takeGrantUse(use(3)), reason("used_up"));
      await assert.rejects(store.takeGrantUse({ ...use(1), grant: "nope" }), reason("not_found"));
      assert.equal((await store.grants())[0]!.uses, 2);
      assert.deepEqual(await store.grants({ active: true }), []);
    }));

  test("a save that carries a use the grant refuses writes neither the state nor its records", () =>
    withGrants(async (store) => {
      const grant = await store.grant({ tool: "pay", maxUses: 1, by: "noor" });
      await store.create(stateOf("r1"));
      await store.takeGrantUse({ grant: grant.id, use: 1, toolDigest: "d" });
      const next = stateOf("r1", { revision: 2, goal: "changed" });
      await assert.rejects(
        store.save(next, { expectedRevision: 1, grantUses: [{ grant: grant.id, use: 2, toolDigest: "d" }] }),
        (error: unknown) => isLeashError(error, "stale_state") && error.details.grant === grant.id,
      );
      assert.equal((await store.load("r1"))?.revision, 1);
      const other: GrantInfo = await store.grant({ tool: "pay", maxUses: 1, by: "noor" });
      await store.save(next, { expectedRevision: 1, grantUses: [{ grant: other.id, use: 1, toolDigest: "d" }] });
      assert.equal((await store.load("r1"))?.goal, "changed");
      assert.equal((await store.grants()).find((item) => item.id === other.id)?.uses, 1);
    }));

  test("a run id that begins with grant: or budget: is refused with invalid_option: those chains are the store's", () =>
    withGrants(async (store) => {
      await assert.rejects(store.create(stateOf("grant:x")), refused("invalid_option", "runId"));
      await assert.rejects(store.create(stateOf("budget:team")), refused("invalid_option", "runId"));
      assert.equal(await store.load("grant:x"), null);
    }));
}
