// `leash approvers add --role`, `leash approvers roles` and the roles in `leash approvers list`,
// through the real bin on SQLite and (with DATABASE_URL) PostgreSQL.
import assert from "node:assert/strict";
import { errorLine, leash } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";
import type { CliStore } from "./cli-stores.js";
import { oldRegistryTable } from "../inbox/roles-helpers.js";

/** Runs `leash approvers ...` on the target's store, without LEASH_DB from the developer's shell. */
function approvers(target: CliStore, args: string[]) {
  return leash(["approvers", ...args, ...target.args], { cwd: target.cwd, env: { LEASH_DB: "" } });
}

function listed(target: CliStore): [string, string[]][] {
  const result = approvers(target, ["list", "--json"]);
  assert.equal(result.status, 0, result.stderr);
  return (JSON.parse(result.stdout) as { approvers: { name: string; roles: string[] }[] }).approvers.map((entry) => [
    entry.name,
    entry.roles,
  ]);
}

eachStore(
  "approvers add takes --role, repeated; list shows the roles in its table and its JSON",
  async (_t, target) => {
    await target.store.list();
    const plain = approvers(target, ["add", "noor", "--json"]);
    assert.equal(plain.status, 0, plain.stderr);
    assert.deepEqual((JSON.parse(plain.stdout) as { roles: string[] }).roles, ["approver"]);
    const both = approvers(target, ["add", "sam", "--role", "spender", "--role", "approver", "--json"]);
    assert.equal(both.status, 0, both.stderr);
    const added = JSON.parse(both.stdout) as { name: string; token: string; roles: string[] };
    assert.equal(added.name, "sam");
    assert.match(added.token, /^leash_at_/);
    assert.deepEqual(added.roles, ["approver", "spender"]);
    const viewer = approvers(target, ["add", "vic", "--role", "viewer"]);
    assert.equal(viewer.status, 0, viewer.stderr);
    assert.match(viewer.stdout, /Approver vic added, with the roles viewer\./);

    const text = approvers(target, ["list"]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^NAME\s+ROLES\s+ADDED$/m);
    assert.match(text.stdout, /^noor\s+approver\s+\d{4}-/m);
    assert.match(text.stdout, /^sam\s+approver,spender\s+\d{4}-/m);
    assert.match(text.stdout, /^vic\s+viewer\s+\d{4}-/m);
    assert.deepEqual(listed(target), [
      ["noor", ["approver"]],
      ["sam", ["approver", "spender"]],
      ["vic", ["viewer"]],
    ]);
  },
);

eachStore("approvers roles replaces a person's roles", async (_t, target) => {
  await target.store.list();
  assert.equal(approvers(target, ["add", "noor", "--role", "viewer"]).status, 0);
  const changed = approvers(target, ["roles", "noor", "spender", "approver"]);
  assert.equal(changed.status, 0, changed.stderr);
  assert.match(changed.stdout, /noor now has the roles approver, spender\./);
  assert.deepEqual(listed(target), [["noor", ["approver", "spender"]]]);
  const json = approvers(target, ["roles", "noor", "viewer", "--json"]);
  assert.equal(json.status, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), { name: "noor", roles: ["viewer"] });
  assert.deepEqual(listed(target), [["noor", ["viewer"]]], "replaced, not added to");
});

eachStore(
  "an unknown role exits 2 with invalid_option naming the known ones, an unknown name with approver_not_found, and neither changes anything",
  async (_t, target) => {
    await target.store.list();
    const unknownOnAdd = approvers(target, ["add", "noor", "--role", "admin"]);
    assert.equal(unknownOnAdd.status, 2);
    assert.equal(errorLine(unknownOnAdd).code, "invalid_option");
    assert.match(errorLine(unknownOnAdd).message, /admin.*known: approver, viewer, spender/);
    assert.equal(unknownOnAdd.stdout, "", "no token printed");
    assert.deepEqual(listed(target), []);

    assert.equal(approvers(target, ["add", "noor"]).status, 0);
    const unknownOnRoles = approvers(target, ["roles", "noor", "viewer", "root"]);
    assert.equal(unknownOnRoles.status, 2);
    assert.equal(errorLine(unknownOnRoles).code, "invalid_option");
    const none = approvers(target, ["roles", "noor"]);
    assert.equal(none.status, 2, "at least one role is required");
    const nobody = approvers(target, ["roles", "nobody", "viewer", "--json"]);
    assert.equal(nobody.status, 2);
    assert.equal((JSON.parse(nobody.stderr) as { error: { code: string } }).error.code, "approver_not_found");
    assert.deepEqual(listed(target), [["noor", ["approver"]]]);
  },
);

eachStore("a registry kept before roles lists its people as approvers, and takes roles", async (_t, target) => {
  await oldRegistryTable(target, "noor");
  assert.deepEqual(listed(target), [["noor", ["approver"]]]);
  assert.equal(approvers(target, ["add", "sam", "--role", "spender"]).status, 0);
  const changed = approvers(target, ["roles", "noor", "approver", "spender"]);
  assert.equal(changed.status, 0, changed.stderr);
  assert.deepEqual(listed(target), [
    ["noor", ["approver", "spender"]],
    ["sam", ["spender"]],
  ]);
});
