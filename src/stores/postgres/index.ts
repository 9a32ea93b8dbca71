/**
 * `leash/postgres`: a run store and audit sink in PostgreSQL, for many workers on many machines.
 * This subpath loads `pg` (an optional peer dependency); the core `leash` never does.
 */
export { PostgresStore } from "./postgres-store.js";
export type { PostgresConnection, PostgresStoreOptions } from "./postgres-store.js";
export type { PostgresPool, PostgresClient, PostgresQueryResult } from "./postgres-pool.js";
export type { LeaseOptions, LeaseHolder } from "./postgres-lease.js";
export { POSTGRES_SCHEMA_VERSION } from "./postgres-schema.js";
export { DEFAULT_POSTGRES_TIMEOUTS } from "./open-pool.js";
export type { PostgresTimeouts } from "./open-pool.js";
