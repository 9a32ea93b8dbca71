// A SQLite file written by an older leash (schema version 2, before standing grants) is brought up
// to date when opened: it takes grants, and its trail, grants included, still verifies.
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { verifyAudit } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";

const OLD_FILE = fileURLToPath(new URL("../fixtures/evidence/main-v2.db", import.meta.url));

test("a database from before standing grants takes them once opened, and its trail still verifies", async () => {
  const folder = mkdtempSync(join(tmpdir(), "leash-grant-migration-"));
  try {
    const path = join(folder, "old.db");
    copyFileSync(OLD_FILE, path);
    const store = new SqliteStore(path);
    try {
      const before = (await store.read()).length;
      const grant = await store.grant({ tool: "pay", maxUses: 2, by: "noor" });
      assert.deepEqual(await store.grants({ active: true }), [grant]);
      const records = await store.read();
      assert.equal(records.length, before + 1);
      assert.deepEqual(verifyAudit(records), []);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
