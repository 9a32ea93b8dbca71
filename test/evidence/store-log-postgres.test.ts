// The store as one Merkle log, on PostgreSQL: the shared suite (one schema per test), the NodeStore
// contract on the store's own table, and four writer processes appending while checkpoints are taken.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { signCheckpoint, verifyCheckpoint } from "../../src/index.js";
import { evidenceLogOf } from "../../src/evidence/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { PostgresNodeStore } from "../../src/stores/postgres/postgres-log-nodes.js";
import { postgresTables } from "../../src/stores/postgres/postgres-tables.js";
import { dropSchema, freshSchemaName, sql, withPostgres } from "../postgres/database.js";
import { startFixture } from "../stores/fixture-process.js";
import { nodeStoreContract } from "./node-store-contract.js";
import { specCheckpoint, specLeaf, specOpenNote, specRoot, specVerifyConsistency } from "./spec-checker.js";
import { origin, signerKey, storeLogSuite, verifierKey } from "./store-log-suite.js";

withPostgres("PostgresStore as one Merkle log", (url) => {
  const schemas: string[] = [];
  const tablesOf = (store: unknown) => postgresTables((store as PostgresStore).schema);

  storeLogSuite({
    name: "PostgresStore",
    open: () => {
      const schema = freshSchemaName();
      schemas.push(schema);
      return Promise.resolve(new PostgresStore({ connectionString: url, schema }));
    },
    reopen: async (store) => {
      await store.close();
      return new PostgresStore({ connectionString: url, schema: (store as PostgresStore).schema });
    },
    tamper: async (store, text) => {
      const tables = tablesOf(store);
      await sql(
        url,
        text
          .replaceAll("{audit}", tables.audit)
          .replaceAll("{nodes}", tables.logNodes)
          .replaceAll("{zeros}", "decode(repeat('00', 32), 'hex')"),
      );
    },
    close: async (store) => {
      await store.close();
      await dropSchema(url, (store as PostgresStore).schema);
    },
  });

  describe("PostgresNodeStore", () => {
    const pools: pg.Pool[] = [];
    nodeStoreContract("PostgresNodeStore", async () => {
      const schema = freshSchemaName();
      schemas.push(schema);
      // The store creates the schema's tables; the contract then works on its `leash_log_nodes`.
      const store = new PostgresStore({ connectionString: url, schema });
      await store.read();
      await store.close();
      const pool = new pg.Pool({ connectionString: url });
      pools.push(pool);
      return new PostgresNodeStore(() => Promise.resolve(pool), postgresTables(schema));
    });
    test("PostgresNodeStore: the contract's schemas are dropped", async () => {
      await Promise.all(pools.map((pool) => pool.end()));
      for (const schema of schemas) await dropSchema(url, schema);
    });
  });

  test("four writer processes append while checkpoints are taken: each checkpoint is consistent with the next, no leaf index is given twice, and read() gives the log's order", async () => {
    const schema = freshSchemaName();
    const store = new PostgresStore({ connectionString: url, schema });
    try {
      await store.read();
      const writers = ["w0", "w1", "w2", "w3"].map((prefix) =>
        startFixture("evidence/append-runs.ts", [url, schema, prefix, "12", "6"]),
      );
      let finished = false;
      const done = Promise.all(
        writers.map(async (writer) => {
          await writer.waitFor((line) => line.startsWith("done"), { timeoutMs: 120_000 });
          assert.equal(await writer.exited, 0, writer.stderr());
        }),
      ).finally(() => {
        finished = true;
      });
      const log = evidenceLogOf(store);
      const notes: string[] = [];
      while (!finished) {
        const note = await signCheckpoint(store, { key: signerKey, origin });
        await log.saveCheckpoint(note, { key: verifierKey });
        notes.push(note);
      }
      await done;
      notes.push(await signCheckpoint(store, { key: signerKey, origin }));
      const checkpoints = notes.map((note) => specCheckpoint(specOpenNote(note, verifierKey)!));
      assert.equal(checkpoints.at(-1)!.size, 4 * 12 * 6);
      assert.ok(new Set(checkpoints.map((checkpoint) => checkpoint.size)).size > 2, "checkpoints of several sizes");
      for (let index = 1; index < checkpoints.length; index++) {
        const [older, newer] = [checkpoints[index - 1]!, checkpoints[index]!];
        assert.ok(older.size <= newer.size);
        if (older.size === 0 || older.size === newer.size) {
          if (older.size === newer.size) assert.deepEqual(older.root, newer.root);
          continue;
        }
        const proof = await log.consistencyProof(older.size, newer.size);
        assert.ok(
          specVerifyConsistency(older.size, newer.size, older.root, newer.root, proof),
          `${older.size} → ${newer.size}`,
        );
      }
      for (const note of notes) assert.deepEqual(await verifyCheckpoint(store, note, { key: verifierKey }), []);
      // read() gives every record in the log's order, whatever order the writers' positions committed in.
      const logOrder = (await store.read()).map((record) => specLeaf(Buffer.from(record.digest, "hex")));
      assert.deepEqual(specRoot(logOrder), checkpoints.at(-1)!.root);
      const tables = postgresTables(schema);
      const counts = await sql(
        url,
        `SELECT count(*) AS records, count(DISTINCT leaf_index) AS leaves, max(leaf_index) AS last FROM ${tables.audit}`,
      );
      assert.deepEqual(counts.rows[0], { records: "288", leaves: "288", last: "287" });
      const leaves = await sql(url, `SELECT count(*) AS count FROM ${tables.logNodes} WHERE level = 0`);
      assert.equal(leaves.rows[0].count, "288");
    } finally {
      await store.close();
      await dropSchema(url, schema);
    }
  });
});
