/**
 * Where a store is: a SQLite file, or a PostgreSQL database and schema. `label` names it for a person
 * (a URL's password masked); `args` is the `--db` (and `--schema`) that names it on the command line.
 */
export type StoreLocation =
  | { kind: "sqlite"; db: string; label: string; args: string }
  | { kind: "postgres"; db: string; schema: string; label: string; args: string };
