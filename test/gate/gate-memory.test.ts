// The gate suite on MemoryStore.
import { MemoryStore } from "../../src/index.js";
import { gateSuite } from "./gate-suite.js";

gateSuite(async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});
