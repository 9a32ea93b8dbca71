/**
 * `leash/sqlite`: the SQLite store, on better-sqlite3. It lives behind its own subpath so that
 * importing `leash` never loads the driver.
 */
export { SqliteStore } from "./sqlite-store.js";
export type { SqliteStoreOptions } from "./sqlite-store.js";
export { SQLITE_SCHEMA_VERSION } from "./sqlite-schema-version.js";
