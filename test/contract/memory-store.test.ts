import { MemoryStore } from "../../src/index.js";
import { runStoreContract } from "./run-store-contract.js";

runStoreContract("MemoryStore", async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});
