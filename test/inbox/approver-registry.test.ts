import { test } from "node:test";
import type { TestContext } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { storeLocation } from "../../src/cli/common-options.js";
import type { StoreLocation } from "../../src/operate/store-location.js";
import { openApproverRegistry } from "../../src/inbox/approver-registry.js";
import type { ApproverRegistry } from "../../src/inbox/approver-registry.js";
import { freshSchemaName, sql, withPostgres } from "../postgres/database.js";
import { openCliStore, storeKinds } from "../cli/cli-stores.js";
import type { CliStore } from "../cli/cli-stores.js";
import { tempFolder } from "../cli/cli-helpers.js";

/** The location a CLI store's `--db`/`--schema` name. */
function locationOf(target: CliStore): StoreLocation {
  const [, db, , schema] = target.args;
  return storeLocation(schema === undefined ? { db } : { db, schema });
}

/** A registry beside a fresh store of each kind, closed after the test. */
function eachRegistry(
  name: string,
  body: (t: TestContext, registry: ApproverRegistry, target: CliStore) => Promise<void>,
): void {
  for (const kind of storeKinds()) {
    test(`${name} (${kind})`, async (t) => {
      const target = openCliStore(t, kind);
      // The store's tables exist once it has been used; the registry is kept beside them.
      await target.store.list();
      const registry = await openApproverRegistry(locationOf(target));
      t.after(() => registry.close());
      await body(t, registry, target);
    });
  }
}

/** Whether the registry's table exists in the target's database. */
async function hasTable(target: CliStore): Promise<boolean> {
  const location = locationOf(target);
  if (location.kind === "sqlite") {
    const database = new Database(location.db, { readonly: true });
    try {
      return database.prepare("SELECT 1 FROM sqlite_master WHERE name = 'leash_approvers'").get() !== undefined;
    } finally {
      database.close();
    }
  }
  const result = await sql(location.db, "SELECT to_regclass($1) IS NOT NULL AS present", [
    `"${location.schema}".leash_approvers`,
  ]);
  return result.rows[0]?.present === true;
}

eachRegistry("a token signs in as its approver, and a removed approver's token stops at once", async (_t, registry) => {
  const noor = await registry.add("noor");
  const sam = await registry.add("sam@example.com");
  assert.match(noor.token, /^leash_at_[A-Za-z0-9_-]{43}$/);
  assert.notEqual(noor.token, sam.token);
  assert.equal(await registry.nameOf(noor.token), "noor");
  assert.equal(await registry.nameOf(sam.token), "sam@example.com");

  assert.equal(await registry.remove("noor"), true);
  assert.equal(await registry.nameOf(noor.token), undefined);
  assert.equal(await registry.nameOf(sam.token), "sam@example.com");
  assert.equal(await registry.remove("noor"), false);
  // A token that is not of a token's shape, or one never given, names nobody.
  assert.equal(await registry.nameOf(""), undefined);
  assert.equal(await registry.nameOf(`${sam.token}x`), undefined);
  assert.equal(await registry.nameOf(`leash_at_${"A".repeat(43)}`), undefined);
});

eachRegistry(
  "only the SHA-256 of a token is kept: its text is nowhere in the database",
  async (_t, registry, target) => {
    const { token } = await registry.add("noor");
    const hash = createHash("sha256").update(token).digest("hex");
    const location = locationOf(target);
    if (location.kind === "sqlite") {
      const bytes = [location.db, `${location.db}-wal`]
        .filter((file) => existsSync(file))
        .map((file) => readFileSync(file).toString("latin1"))
        .join("");
      assert.ok(bytes.includes(hash), "the hash is in the file");
      assert.ok(!bytes.includes(token), "the token is not");
      assert.ok(!bytes.includes(token.slice("leash_at_".length)), "nor its random part");
      return;
    }
    const rows = await sql(location.db, `SELECT * FROM "${location.schema}".leash_approvers`);
    assert.deepEqual(Object.keys(rows.rows[0] as object).sort(), ["created_at", "name", "roles", "token_sha256"]);
    assert.equal(rows.rows[0]?.token_sha256, hash);
    assert.ok(!JSON.stringify(rows.rows).includes(token.slice("leash_at_".length)));
  },
);

eachRegistry(
  "names outside the rule are refused with invalid_option, a taken name with approver_exists",
  async (_t, registry) => {
    for (const name of ["", "a".repeat(65), "no or", "noor\n", "<b>", "nóor", "a/b"]) {
      await assert.rejects(registry.add(name), { code: "invalid_option" }, JSON.stringify(name));
    }
    await registry.add("a".repeat(64));
    const first = await registry.add("noor");
    await assert.rejects(registry.add("noor"), { code: "approver_exists" });
    // The refused add changed nothing: the first token still signs in.
    assert.equal(await registry.nameOf(first.token), "noor");
    assert.deepEqual(
      (await registry.list()).map((entry) => entry.name),
      ["a".repeat(64), "noor"],
    );
  },
);

eachRegistry("a store without approvers lists none, and reading it creates no table", async (_t, registry, target) => {
  assert.deepEqual(await registry.list(), []);
  assert.equal(await registry.nameOf(`leash_at_${"A".repeat(43)}`), undefined);
  assert.equal(await registry.remove("noor"), false);
  assert.equal(await hasTable(target), false);
  await registry.add("noor");
  assert.equal(await hasTable(target), true);
  const [entry] = await registry.list();
  assert.equal(entry?.name, "noor");
  assert.ok(!Number.isNaN(Date.parse(entry?.createdAt ?? "")), "createdAt is a time");
  assert.deepEqual(Object.keys(entry ?? {}).sort(), ["createdAt", "name", "roles"]);
});

eachRegistry("two registries adding at once on a fresh store both succeed", async (t, registry, target) => {
  const other = await openApproverRegistry(locationOf(target));
  t.after(() => other.close());
  const [a, b] = await Promise.all([registry.add("noor"), other.add("sam")]);
  assert.equal(await other.nameOf(a.token), "noor");
  assert.equal(await registry.nameOf(b.token), "sam");
});

test("a file that is not a leash store is refused, and a missing one is not created", async (t) => {
  const folder = tempFolder();
  t.after(() => folder.remove());
  const missing = join(folder.path, "typo.db");
  await assert.rejects(openApproverRegistry(storeLocation({ db: missing })), { code: "db_not_found" });
  assert.equal(existsSync(missing), false);
  const text = join(folder.path, "notes.txt");
  writeFileSync(text, "not a database");
  await assert.rejects(openApproverRegistry(storeLocation({ db: text })), { code: "not_a_database" });
  const other = join(folder.path, "other.db");
  const database = new Database(other);
  database.exec("CREATE TABLE things (id INTEGER)");
  database.close();
  await assert.rejects(openApproverRegistry(storeLocation({ db: other })), { code: "not_a_database" });
});

withPostgres("approver registry on PostgreSQL", (url) => {
  test("a schema without a leash store is refused, and nothing is created in it", async () => {
    const schema = freshSchemaName("leash_approvers_absent");
    await assert.rejects(openApproverRegistry(storeLocation({ db: url, schema })), { code: "db_not_found" });
    const found = await sql(url, "SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [schema]);
    assert.equal(found.rowCount, 0);
  });
});
