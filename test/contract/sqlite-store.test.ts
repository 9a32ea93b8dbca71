import { describe } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { budgetsContract } from "./budgets-contract.js";
import type { MakeStore } from "./contract-fixtures.js";
import { notificationsContract } from "./notifications-contract.js";
import { runStoreContract } from "./run-store-contract.js";
import { rawAccess } from "./sqlite-raw-access.js";

// Each test gets its own database file in a temp directory, removed afterwards.
const onFile: MakeStore = async () => {
  const directory = mkdtempSync(join(tmpdir(), "leash-sqlite-contract-"));
  const path = join(directory, "runs.db");
  const store = new SqliteStore(path);
  return {
    store,
    raw: rawAccess(path),
    child: { kind: "sqlite", location: path },
    cleanup: async () => {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
};

const inMemory: MakeStore = async () => {
  const store = new SqliteStore(":memory:");
  return { store, cleanup: () => store.close() };
};

runStoreContract("SqliteStore", onFile);
runStoreContract("SqliteStore in memory", inMemory);

describe("SqliteStore shared budgets", () => budgetsContract(onFile));
describe("SqliteStore in memory shared budgets", () => budgetsContract(inMemory));
describe("SqliteStore outbox", () => notificationsContract(onFile));
describe("SqliteStore in memory outbox", () => notificationsContract(inMemory));
