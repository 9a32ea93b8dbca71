import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { openApproverRegistry } from "../../src/inbox/approver-registry.js";
import { openLinkStore } from "../../src/inbox/link-store.js";
import { rolesAllowAnswer } from "../../src/inbox/approver-roles.js";
import type { ApprovalRequest } from "../../src/index.js";
import { eachStore } from "../cli/cli-stores.js";
import type { CliStore } from "../cli/cli-stores.js";
import { sql } from "../postgres/database.js";
import { locationOf } from "./link-helpers.js";
import { pausedRun } from "./serve-helpers.js";

/** Every row of the links' table, as text. */
async function tableText(target: CliStore): Promise<string> {
  if (target.kind === "postgres") {
    const schema = target.args[3] as string;
    const result = await sql(process.env.DATABASE_URL as string, `SELECT * FROM "${schema}".leash_links`);
    return JSON.stringify(result.rows);
  }
  const file = target.args[1] as string;
  // The whole file and its write-ahead log, byte for byte: the token must be nowhere in them.
  return [file, `${file}-wal`]
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString("latin1"))
    .join("");
}

eachStore("a link's token is stored only as its SHA-256: it appears nowhere in the database", async (t, target) => {
  const run = await pausedRun(target);
  const registry = await openApproverRegistry(locationOf(target));
  t.after(() => registry.close());
  await registry.add("noor");
  const links = await openLinkStore(locationOf(target));
  t.after(() => links.close());
  const { token, link } = await links.create({
    name: "noor",
    runId: run.runId,
    digest: run.pending?.digest ?? "",
    step: 0,
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  assert.match(token, /^leash_lk_[A-Za-z0-9_-]{43}$/);
  const text = await tableText(target);
  assert.equal(text.includes(token), false, "the token");
  assert.equal(text.includes(token.slice("leash_lk_".length)), false, "the token's random part");
  assert.equal(text.includes(createHash("sha256").update(token).digest("hex")), true, "its hash");
  assert.equal(text.includes(link.id), true, "the link's id");
  assert.deepEqual(await links.find(token), link);
});

eachStore("a link is spent once, only before it expires, and only while its person is there", async (t, target) => {
  const run = await pausedRun(target);
  const registry = await openApproverRegistry(locationOf(target));
  t.after(() => registry.close());
  await registry.add("noor");
  let now = new Date("2030-01-01T00:00:00.000Z");
  const links = await openLinkStore(locationOf(target), { now: () => now });
  t.after(() => links.close());
  const fields = { name: "noor", runId: run.runId, digest: run.pending?.digest ?? "", step: 0 };
  const first = await links.create({ ...fields, expiresAt: "2030-01-01T01:00:00.000Z" });
  assert.equal(first.link.createdAt, "2030-01-01T00:00:00.000Z");
  const second = await links.create({ ...fields, expiresAt: "2030-01-01T01:00:00.000Z" });
  const third = await links.create({ ...fields, expiresAt: "2030-01-01T01:00:00.000Z" });

  const spent = await links.spend(first.token, now);
  assert.equal(spent?.usedAt, "2030-01-01T00:00:00.000Z");
  assert.equal(await links.spend(first.token, now), undefined, "a second spend");

  now = new Date("2030-01-01T01:00:00.000Z");
  assert.equal(await links.spend(second.token, now), undefined, "at its expiry");
  assert.equal((await links.find(second.token))?.usedAt, undefined, "an expired link is not spent");

  assert.equal(await registry.remove("noor"), true);
  assert.equal(await links.find(third.token), undefined, "a removed person's link");
  assert.equal(await links.spend(third.token, new Date("2030-01-01T00:30:00.000Z")), undefined);
  await registry.add("noor");
  assert.equal(await links.find(third.token), undefined, "deleted with the person, not only hidden");
});

eachStore("a link for a name that is no person of the registry is role_refused", async (t, target) => {
  const run = await pausedRun(target);
  const links = await openLinkStore(locationOf(target));
  t.after(() => links.close());
  const fields = {
    runId: run.runId,
    digest: run.pending?.digest ?? "",
    step: 0,
    expiresAt: "2030-01-01T00:00:00.000Z",
  };
  // No registry yet: nothing is created.
  await assert.rejects(links.create({ name: "noor", ...fields }), { code: "role_refused" });
  const registry = await openApproverRegistry(locationOf(target));
  t.after(() => registry.close());
  await registry.add("noor");
  await assert.rejects(links.create({ name: "mallory", ...fields }), { code: "role_refused" });
  assert.deepEqual(await registry.rolesOf("noor"), ["approver"]);
  assert.equal(await registry.rolesOf("mallory"), undefined);
});

test("who may answer what: approver answers calls, spender answers limits, viewer answers nothing", () => {
  const call = { kind: "call" } as Pick<ApprovalRequest, "kind">;
  const limit = { kind: "limit" } as Pick<ApprovalRequest, "kind">;
  assert.equal(rolesAllowAnswer(["approver"], call), true);
  assert.equal(rolesAllowAnswer(["approver"], limit), false);
  assert.equal(rolesAllowAnswer(["spender"], limit), true);
  assert.equal(rolesAllowAnswer(["spender"], call), false);
  assert.equal(rolesAllowAnswer(["viewer"], call), false);
  assert.equal(rolesAllowAnswer(["viewer"], limit), false);
  assert.equal(rolesAllowAnswer([], call), false);
  assert.equal(rolesAllowAnswer(["viewer", "approver", "spender"], call), true);
});
