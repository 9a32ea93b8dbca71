// The store as one Merkle log, on SQLite: the shared suite on real files, and the NodeStore contract
// on the store's own table.
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { SqliteNodeStore } from "../../src/stores/sqlite/sqlite-log-nodes.js";
import { temporaryDirectory } from "../audit/audit-test-helpers.js";
import { nodeStoreContract } from "./node-store-contract.js";
import { storeLogSuite, type LogStore } from "./store-log-suite.js";

const directory = temporaryDirectory();
let files = 0;

storeLogSuite({
  name: "SqliteStore",
  open: () => Promise.resolve(new SqliteStore(join(directory, `log-${files++}.db`))),
  reopen: async (store) => {
    await store.close();
    return new SqliteStore((store as SqliteStore).path);
  },
  tamper: (store, sql) => {
    const database = new Database((store as SqliteStore).path);
    try {
      database.exec(sql.replaceAll("{audit}", "audit").replaceAll("{nodes}", "leash_log_nodes").replaceAll("{zeros}", "zeroblob(32)"));
    } finally {
      database.close();
    }
    return Promise.resolve();
  },
  close: (store: LogStore) => store.close(),
});

nodeStoreContract("SqliteNodeStore", async () => {
  const path = join(directory, `nodes-${files++}.db`);
  // The store creates and migrates the file; the contract then works on its `leash_log_nodes` table.
  await new SqliteStore(path).close();
  return new SqliteNodeStore(new Database(path));
});
