/**
 * The schema version this leash writes and reads; recorded in the `leash_meta` table. In a file of its
 * own, without the driver: `leash/sqlite` exports it, and its declaration must not need
 * better-sqlite3's types (an app's `tsc` with `skipLibCheck: false` has none).
 */
export const SQLITE_SCHEMA_VERSION = 7;
