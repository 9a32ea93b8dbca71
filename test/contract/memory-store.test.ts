import { describe } from "node:test";
import { MemoryStore } from "../../src/index.js";
import { budgetsContract } from "./budgets-contract.js";
import type { MakeStore } from "./contract-fixtures.js";
import { notificationsContract } from "./notifications-contract.js";
import { runStoreContract } from "./run-store-contract.js";

const makeStore: MakeStore = async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
};

runStoreContract("MemoryStore", makeStore);

describe("MemoryStore shared budgets", () => budgetsContract(makeStore));
describe("MemoryStore outbox", () => notificationsContract(makeStore));
