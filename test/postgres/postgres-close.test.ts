// Closing a PostgresStore while work is in flight: every call asked for before the close settles, and
// each that resolved is stored. Ending a pg pool drops whoever still waits for a connection without
// settling their promises, so the store waits for its work first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { stateOf } from "../contract/contract-fixtures.js";
import { dropSchema, freshSchemaName, withPostgres } from "./database.js";

withPostgres("closing a PostgresStore with work in flight", (url) => {
  test("close() with creates, saves and loads in flight on a small pool: every call settles, and what resolved is stored", async (t) => {
    const schema = freshSchemaName("leash_close");
    t.after(() => dropSchema(url, schema));
    const store = new PostgresStore({ connectionString: url, schema, poolMax: 2 });
    const ids = Array.from({ length: 30 }, (_, index) => `close-${index}`);
    await store.create(stateOf("saved-run"));
    const outcomes = new Map<string, string>();
    const calls = [
      ...ids.map((id) => store.create(stateOf(id)).then(() => outcomes.set(id, "resolved"))),
      store
        .save(stateOf("saved-run", { revision: 2 }), { expectedRevision: 1 })
        .then(() => outcomes.set("save", "resolved")),
      store.load("saved-run").then(() => outcomes.set("load", "resolved")),
    ].map((call) => call.catch((error: { code?: string }) => error.code ?? "threw"));
    await store.close();
    // Every call asked for before close() has settled once close() has resolved.
    const settled = await Promise.race([
      Promise.all(calls).then(() => true),
      new Promise<false>((resolve) => setImmediate(() => resolve(false))),
    ]);
    assert.equal(settled, true, "a call asked for before close() was still pending after it");
    const again = new PostgresStore({ connectionString: url, schema });
    try {
      for (const id of ids) {
        if (outcomes.get(id) === "resolved")
          assert.notEqual(await again.load(id), null, `${id} resolved but is not stored`);
      }
      if (outcomes.get("save") === "resolved") assert.equal((await again.load("saved-run"))?.revision, 2);
      assert.ok(outcomes.size > 0, "the work asked for before close() was done, not refused");
    } finally {
      await again.close();
    }
    await assert.rejects(store.load("saved-run"), { code: "store_failed" });
  });
});
