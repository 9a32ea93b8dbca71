import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { storeLocation } from "../../src/cli/common-options.js";
import { openApproverRegistry } from "../../src/inbox/approver-registry.js";
import { errorLine, leash, tempFolder } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";
import type { CliStore } from "./cli-stores.js";

const TOKEN = /leash_at_[A-Za-z0-9_-]{43}/;

/** Runs `leash approvers ...` on the target's store, without LEASH_DB from the developer's shell. */
function approvers(target: CliStore, args: string[]) {
  return leash(["approvers", ...args, ...target.args], { cwd: target.cwd, env: { LEASH_DB: "" } });
}

/** The name the registry beside the target's runs gives a token. */
async function nameOf(target: CliStore, token: string): Promise<string | undefined> {
  const [, db, , schema] = target.args;
  const registry = await openApproverRegistry(storeLocation(schema === undefined ? { db } : { db, schema }));
  try {
    return await registry.nameOf(token);
  } finally {
    await registry.close();
  }
}

eachStore("approvers add prints the token once, says how to sign in, and the token signs in", async (_t, target) => {
  await target.store.list();
  const added = approvers(target, ["add", "noor"]);
  assert.equal(added.status, 0, added.stderr);
  const token = TOKEN.exec(added.stdout)?.[0];
  assert.ok(token !== undefined, added.stdout);
  assert.match(added.stdout, /shown only this once/);
  assert.match(added.stdout, /sign in/);
  assert.match(added.stdout, /Authorization: Bearer/);
  assert.equal(await nameOf(target, token), "noor");

  const json = approvers(target, ["add", "sam", "--json"]);
  assert.equal(json.status, 0, json.stderr);
  const parsed = JSON.parse(json.stdout) as { name: string; token: string };
  assert.deepEqual(Object.keys(parsed).sort(), ["name", "roles", "token"]);
  assert.equal(parsed.name, "sam");
  assert.match(parsed.token, new RegExp(`^${TOKEN.source}$`));
  assert.equal(await nameOf(target, parsed.token), "sam");
});

eachStore("approvers list shows names and times, never a token or its hash", async (_t, target) => {
  await target.store.list();
  const empty = approvers(target, ["list", "--json"]);
  assert.equal(empty.status, 0, empty.stderr);
  assert.deepEqual(JSON.parse(empty.stdout), { approvers: [] });

  const { token } = JSON.parse(approvers(target, ["add", "noor", "--json"]).stdout) as { token: string };
  const text = approvers(target, ["list"]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^NAME\s+ROLES\s+ADDED$/m);
  assert.match(text.stdout, /^noor\s+approver\s+\d{4}-\d\d-\d\dT/m);
  const json = approvers(target, ["list", "--json"]);
  const listed = JSON.parse(json.stdout) as { approvers: { name: string; createdAt: string }[] };
  assert.deepEqual(
    listed.approvers.map((approver) => Object.keys(approver).sort()),
    [["createdAt", "name", "roles"]],
  );
  assert.equal(listed.approvers[0]?.name, "noor");
  for (const output of [text.stdout, json.stdout]) {
    assert.doesNotMatch(output, /leash_at_/);
    assert.ok(!output.includes(token.slice("leash_at_".length)));
    assert.doesNotMatch(output, /[0-9a-f]{64}/, "no hash either");
  }
});

eachStore(
  "approvers remove ends a token at once, and a name that is not there exits 2 with approver_not_found",
  async (_t, target) => {
    await target.store.list();
    const { token } = JSON.parse(approvers(target, ["add", "noor", "--json"]).stdout) as { token: string };
    const removed = approvers(target, ["remove", "noor"]);
    assert.equal(removed.status, 0, removed.stderr);
    assert.match(removed.stdout, /noor removed/);
    assert.equal(await nameOf(target, token), undefined);

    const again = approvers(target, ["remove", "noor"]);
    assert.equal(again.status, 2);
    assert.equal(errorLine(again).code, "approver_not_found");
    const json = approvers(target, ["remove", "nobody", "--json"]);
    assert.equal(json.status, 2);
    assert.equal((JSON.parse(json.stderr) as { error: { code: string } }).error.code, "approver_not_found");
  },
);

eachStore("approvers add refuses a name outside the rule and a taken one, with their codes", async (_t, target) => {
  await target.store.list();
  const bad = approvers(target, ["add", "noor smith"]);
  assert.equal(bad.status, 2);
  assert.equal(errorLine(bad).code, "invalid_option");
  assert.equal(approvers(target, ["add", "noor"]).status, 0);
  const taken = approvers(target, ["add", "noor"]);
  assert.equal(taken.status, 2);
  assert.equal(errorLine(taken).code, "approver_exists");
  assert.equal(taken.stdout, "", "no token printed for a refused name");
});

test("approvers add on a --db that does not exist is refused with db_not_found, and makes no file", (t) => {
  const folder = tempFolder();
  t.after(() => folder.remove());
  const result = leash(["approvers", "add", "noor", "--db", "typo.db"], { cwd: folder.path });
  assert.equal(result.status, 2);
  assert.equal(errorLine(result).code, "db_not_found");
  assert.equal(existsSync(join(folder.path, "typo.db")), false);
});
