// A PostgreSQL server of the test run's own, started by .ci/postgres-start.sh (the script CI uses)
// and stopped by .ci/postgres-stop.sh, when the run needs one and no DATABASE_URL names a server.
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";

/** The command that installs the server binaries on Debian, named wherever they are missing. */
export const INSTALL_POSTGRES = "apt-get install -y postgresql";

/**
 * The folder of the PostgreSQL server binaries (`initdb`, `pg_ctl`), found where postgres-start.sh
 * looks: LEASH_PG_BIN, Debian's /usr/lib/postgresql/<version>/bin (the newest), then PATH; or
 * `undefined` when there are none.
 */
export function findPostgresBin(environment = process.env) {
  const given = environment.LEASH_PG_BIN;
  if (given !== undefined && given !== "") return hasServer(given) ? given : undefined;
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((version) => hasServer(join(debian, version, "bin")))
      .sort((left, right) => Number.parseFloat(right) - Number.parseFloat(left));
    if (versions.length > 0) return join(debian, versions[0], "bin");
  }
  return (environment.PATH ?? "").split(delimiter).find((folder) => folder !== "" && hasServer(folder));
}

function hasServer(folder) {
  return existsSync(join(folder, "initdb")) && existsSync(join(folder, "pg_ctl"));
}

/**
 * Starts a throwaway cluster with the binaries in `bin`. Resolves with its `url` (a DATABASE_URL) and
 * `stop()`, which stops it and removes its folder (and may be called more than once); rejects with
 * the script's own explanation when the server did not start.
 */
export function startPostgres(root, bin) {
  return new Promise((resolve, reject) => {
    execFile(
      "bash",
      [join(root, ".ci", "postgres-start.sh")],
      { env: { ...process.env, LEASH_PG_BIN: bin }, encoding: "utf8", timeout: 180_000 },
      (error, stdout, stderr) => {
        const assignments = parseAssignments(stdout);
        const folder = assignments.LEASH_PG_DIR;
        const url = assignments.DATABASE_URL;
        if (error !== null || folder === undefined || url === undefined) {
          reject(new Error(`PostgreSQL did not start: ${stderr.trim() || error?.message || "no address printed"}`));
          return;
        }
        let stopping;
        const stop = () => {
          stopping ??= new Promise((done) => {
            execFile(
              "bash",
              [join(root, ".ci", "postgres-stop.sh"), folder],
              { env: { ...process.env, LEASH_PG_BIN: bin }, timeout: 120_000 },
              () => done(),
            );
          });
          return stopping;
        };
        resolve({ url, folder, stop });
      },
    );
  });
}

/** The `NAME=value` lines postgres-start.sh prints (bash's `%q` quoting, which escapes with backslashes). */
function parseAssignments(text) {
  const assignments = {};
  for (const line of text.split("\n")) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line);
    if (match !== null) assignments[match[1]] = match[2].replace(/\\(.)/g, "$1");
  }
  return assignments;
}
