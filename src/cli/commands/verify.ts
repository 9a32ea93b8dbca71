import { statSync } from "node:fs";
import { Command } from "commander";
import { CliError, EXIT_FAILURE } from "../cli-error.js";
import { withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
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

/**
 * `leash verify [PATH]`: checks a JSONL trail or a store's trail (a SQLite file, told by its header;
 * default `--db`) and exits 1 naming every problem by run, seq and kind. A store's runs are checked
 * against their states' `auditHead`s; `--head SEQ:DIGEST` checks a run against a head kept elsewhere.
 */
export function verifyCommand(): Command {
  const command = new Command("verify")
    .description("check a JSONL trail or a store's trail (default: --db); exit 1 naming every problem")
    .argument("[path]", "a JSONL audit trail or a SQLite store (default: the --db file)")
    .option("--head <seq:digest>", "a head kept outside the trail: the run's trail must hold it")
    .option("--run <run>", "the run --head is for (needed when the trail holds several runs)");
  return withCommonOptions(command).action(async (path: string | undefined, options: VerifyOptions) => {
    const target = path ?? options.db;
    if (!isFile(target)) throw new CliError("trail_not_found", `There is no trail or database at ${target}.`);
    const report: TrailReport = isSqliteFile(target)
      ? await withExistingStore(target, (store) => verifyStore(store, target, options.head, options.run))
      : verifyJsonl(target, options.head, options.run);
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
