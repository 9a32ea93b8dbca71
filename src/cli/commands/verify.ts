import { statSync } from "node:fs";
import { Command } from "commander";
import { CliError, EXIT_FAILURE } from "../cli-error.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions, StoreLocation } from "../common-options.js";
import { isSqliteFile, withExistingStore } from "../open-store.js";
import { printJson, printLines } from "../print.js";
import { reportLines } from "../verify/trail-report.js";
import type { TrailReport } from "../verify/trail-report.js";
import { verifyJsonl } from "../verify/verify-jsonl.js";
import { verifyStore } from "../verify/verify-store.js";

interface VerifyOptions extends CommonOptions {
  head?: string;
  run?: string;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Verifies the trail of a store, each run against its state's head. */
function verifyAt(location: StoreLocation, options: VerifyOptions): Promise<TrailReport> {
  return withExistingStore(location, (store) =>
    verifyStore(store, location.label, options.head, options.run, location.kind),
  );
}

/**
 * `leash verify [PATH]`: checks a JSONL trail or a store's trail (a SQLite file, told by its header, or
 * a PostgreSQL URL; default `--db`) and exits 1 naming every problem by run, seq and kind: a run whose
 * state cannot be read is one, and so is a file that holds no trail. A store's runs are checked
 * against their states' `auditHead`s; `--head SEQ:DIGEST` checks a run against a head kept elsewhere.
 */
export function verifyCommand(): Command {
  const command = new Command("verify")
    .description("check a JSONL trail or a store's trail (default: --db); exit 1 naming every problem")
    .argument("[path]", "a JSONL audit trail, a SQLite store or a postgres:// URL (default: the --db store)")
    .option("--head <seq:digest>", "a head kept outside the trail: the run's trail must hold it")
    .option("--run <run>", "the run --head is for (needed when the trail holds several runs)");
  return withCommonOptions(command).action(async (path: string | undefined, options: VerifyOptions) => {
    if (path !== undefined && options.db !== undefined)
      throw new CliError("invalid_option", "Give either a PATH or --db, not both.");
    const location = storeLocation(path === undefined ? options : { ...options, db: path });
    const target = location.label;
    let report: TrailReport;
    if (location.kind === "postgres") {
      report = await verifyAt(location, options);
    } else {
      if (!isFile(location.db)) throw new CliError("trail_not_found", `There is no trail or database at ${target}.`);
      report = isSqliteFile(location.db)
        ? await verifyAt(location, options)
        : verifyJsonl(location.db, options.head, options.run);
    }
    if (options.json) printJson({ ...report, ok: report.problems.length === 0 });
    else printLines(reportLines(report));
    if (report.problems.length > 0) {
      const count = report.problems.length;
      throw new CliError(
        "verification_failed",
        `${target} does not verify: ${count} problem${count === 1 ? "" : "s"}.`,
        EXIT_FAILURE,
      );
    }
  });
}
