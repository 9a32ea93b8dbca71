// The roles of the approver registry, on SQLite and (with DATABASE_URL) PostgreSQL: given on add,
// listed, read with a token in one lookup, replaced; refused when empty or unknown, changing nothing;
// and a registry table kept before roles still signs its people in, as approvers.
import { test } from "node:test";
import type { TestContext } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { openApproverRegistry, ROLES } from "../../src/inbox/approver-registry.js";
import type { ApproverRegistry, Role } from "../../src/inbox/approver-registry.js";
import { sql } from "../postgres/database.js";
import { openCliStore, storeKinds } from "../cli/cli-stores.js";
import type { CliStore } from "../cli/cli-stores.js";
import { locationOf, oldRegistryTable } from "./roles-helpers.js";

/** A registry beside a fresh, used store of each kind, closed after the test. */
function eachRegistry(
  name: string,
  body: (t: TestContext, registry: ApproverRegistry, target: CliStore) => Promise<void>,
): void {
  for (const kind of storeKinds()) {
    test(`${name} (${kind})`, async (t) => {
      const target = openCliStore(t, kind);
      await target.store.list();
      const registry = await openApproverRegistry(locationOf(target));
      t.after(() => registry.close());
      await body(t, registry, target);
    });
  }
}

/** The columns of the registry's table. */
async function columnsOf(target: CliStore): Promise<string[]> {
  const location = locationOf(target);
  if (location.kind === "sqlite") {
    const database = new Database(location.db, { readonly: true });
    try {
      return (database.prepare("PRAGMA table_info(leash_approvers)").all() as { name: string }[])
        .map((column) => column.name)
        .sort();
    } finally {
      database.close();
    }
  }
  const result = await sql(
    location.db,
    "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'leash_approvers' ORDER BY column_name",
    [location.schema],
  );
  return result.rows.map((row) => String(row.column_name));
}

test("the roles are approver, viewer and spender", () => {
  assert.deepEqual([...ROLES], ["approver", "viewer", "spender"]);
});

eachRegistry(
  "add keeps the roles given (approver by default); list, rolesOf and whoIs read them",
  async (_t, registry) => {
    const noor = await registry.add("noor");
    assert.deepEqual(noor.roles, ["approver"]);
    // Repeats are dropped and the order is the list's own, whatever order they were given in.
    const sam = await registry.add("sam", { roles: ["spender", "approver", "spender"] });
    assert.deepEqual(sam.roles, ["approver", "spender"]);
    await registry.add("vic", { roles: ["viewer"] });
    assert.deepEqual(
      (await registry.list()).map((entry) => [entry.name, entry.roles]),
      [
        ["noor", ["approver"]],
        ["sam", ["approver", "spender"]],
        ["vic", ["viewer"]],
      ],
    );
    assert.deepEqual(await registry.rolesOf("sam"), ["approver", "spender"]);
    assert.equal(await registry.rolesOf("nobody"), undefined);
    assert.deepEqual(await registry.whoIs(sam.token), { name: "sam", roles: ["approver", "spender"] });
    assert.equal(await registry.whoIs(`leash_at_${"A".repeat(43)}`), undefined);
    assert.equal(await registry.whoIs("not a token"), undefined);
  },
);

eachRegistry("setRoles replaces a person's roles, and their token reads the new ones at once", async (_t, registry) => {
  const { token } = await registry.add("noor", { roles: ["viewer"] });
  assert.deepEqual(await registry.setRoles("noor", ["spender", "viewer"]), ["viewer", "spender"]);
  assert.deepEqual(await registry.whoIs(token), { name: "noor", roles: ["viewer", "spender"] });
  assert.deepEqual(await registry.setRoles("noor", ["approver"]), ["approver"]);
  assert.deepEqual(await registry.rolesOf("noor"), ["approver"]);
  assert.deepEqual(
    (await registry.list()).map((entry) => entry.roles),
    [["approver"]],
  );
});

eachRegistry(
  "an empty or unknown role is refused with invalid_option naming the known ones, and changes nothing",
  async (_t, registry) => {
    await registry.add("noor", { roles: ["spender"] });
    const refusals: [string, () => Promise<unknown>][] = [
      ["add with no role", () => registry.add("sam", { roles: [] })],
      ["add with an unknown role", () => registry.add("sam", { roles: ["admin" as Role] })],
      ["add with an unknown option", () => registry.add("sam", { role: ["viewer"] } as never)],
      ["setRoles with no role", () => registry.setRoles("noor", [])],
      ["setRoles with an unknown role", () => registry.setRoles("noor", ["approver", "root" as Role])],
      ["setRoles with roles that are not a list", () => registry.setRoles("noor", "viewer" as never)],
    ];
    for (const [what, refused] of refusals)
      await assert.rejects(
        refused(),
        (error: Error & { code?: string }) => {
          assert.equal(error.code, "invalid_option", what);
          if (!what.includes("option")) assert.match(error.message, /approver, viewer, spender/, what);
          return true;
        },
        what,
      );
    assert.deepEqual(
      (await registry.list()).map((entry) => [entry.name, entry.roles]),
      [["noor", ["spender"]]],
    );
  },
);

eachRegistry(
  "setRoles of a name the registry does not hold is approver_not_found, and creates no table",
  async (_t, registry, target) => {
    await assert.rejects(registry.setRoles("nobody", ["viewer"]), { code: "approver_not_found" });
    assert.deepEqual(await columnsOf(target), [], "no table was made");
    await registry.add("noor");
    await assert.rejects(registry.setRoles("nobody", ["viewer"]), { code: "approver_not_found" });
    assert.deepEqual(await registry.rolesOf("noor"), ["approver"]);
  },
);

eachRegistry(
  "a table kept before roles signs its people in as approvers, and gets its column on the first write",
  async (_t, registry, target) => {
    const token = await oldRegistryTable(target, "noor");
    assert.deepEqual(await columnsOf(target), ["created_at", "name", "token_sha256"]);
    // Reading writes nothing: the old table stays as it was.
    assert.deepEqual(await registry.whoIs(token), { name: "noor", roles: ["approver"] });
    assert.equal(await registry.nameOf(token), "noor");
    assert.deepEqual(await registry.rolesOf("noor"), ["approver"]);
    assert.deepEqual(
      (await registry.list()).map((entry) => entry.roles),
      [["approver"]],
    );
    assert.deepEqual(await columnsOf(target), ["created_at", "name", "token_sha256"]);

    const sam = await registry.add("sam", { roles: ["spender"] });
    assert.deepEqual(await columnsOf(target), ["created_at", "name", "roles", "token_sha256"]);
    assert.deepEqual(await registry.whoIs(token), { name: "noor", roles: ["approver"] }, "still an approver");
    assert.deepEqual(await registry.whoIs(sam.token), { name: "sam", roles: ["spender"] });
    assert.deepEqual(await registry.setRoles("noor", ["viewer"]), ["viewer"]);
    assert.deepEqual(await registry.whoIs(token), { name: "noor", roles: ["viewer"] });
  },
);

for (const kind of storeKinds())
  test(`two registries writing at once to a table kept before roles both succeed, adding the column once (${kind})`, async (t) => {
    const target = openCliStore(t, kind);
    const token = await oldRegistryTable(target, "noor");
    const registries = await Promise.all([0, 1, 2, 3].map(() => openApproverRegistry(locationOf(target))));
    t.after(() => Promise.all(registries.map((registry) => registry.close())));
    const [first, second, third, fourth] = registries as [
      ApproverRegistry,
      ApproverRegistry,
      ApproverRegistry,
      ApproverRegistry,
    ];
    const results = await Promise.all([
      first.add("sam", { roles: ["spender"] }),
      second.add("vic", { roles: ["viewer"] }),
      third.setRoles("noor", ["approver", "spender"]),
      fourth.add("ada"),
    ]);
    assert.equal(results.length, 4);
    assert.deepEqual(await columnsOf(target), ["created_at", "name", "roles", "token_sha256"]);
    assert.deepEqual((await first.list()).map((entry) => [entry.name, entry.roles]).sort(), [
      ["ada", ["approver"]],
      ["noor", ["approver", "spender"]],
      ["sam", ["spender"]],
      ["vic", ["viewer"]],
    ]);
    assert.deepEqual(await second.whoIs(token), { name: "noor", roles: ["approver", "spender"] });
  });
