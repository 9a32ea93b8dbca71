// The gate suite on PostgresStore, each test on a schema of its own (skipped without DATABASE_URL).
import { freshStore, withPostgres } from "../postgres/database.js";
import { gateSuite } from "./gate-suite.js";

withPostgres("a gate's sessions on PostgreSQL", (url) => {
  gateSuite(() => {
    const { store, cleanup } = freshStore(url);
    return Promise.resolve({ store, cleanup });
  });
});
