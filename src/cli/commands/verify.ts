import { statSync } from "node:fs";
import { Command } from "commander";
import { CliError, EXIT_FAILURE } from "../cli-error.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import type { StoreLocation } from "../../operate/store-location.js";
import { isSqliteFile, withExistingStore } from "../../operate/open-store.js";
import { printJson, printLines } from "../print.js";
import { reportLines } from "../verify/trail-report.js";
import type { TrailReport } from "../verify/trail-report.js";
import { verifyJsonl } from "../verify/verify-jsonl.js";
import { verifyStore } from "../verify/verify-store.js";
import { verifyAgainstCheckpoint } from "../verify/verify-checkpoint.js";
import type { KeyOptions } from "../evidence/read-key.js";

interface VerifyOptions extends CommonOptions, KeyOptions {
  head?: string;
  run?: string;
  checkpoint?: string;
  witnessKey: string[];
  witnesses?: string;
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
 * `--checkpoint FILE --key KEY` checks a signed checkpoint against the log instead, and with
 * `--witness-key KEY` (repeatable) and `--witnesses K` that K of those witnesses (default all) cosigned it.
 */
export function verifyCommand(): Command {
  const command = new Command("verify")
    .description("check a JSONL trail or a store's trail (default: --db); exit 1 naming every problem")
    .argument("[path]", "a JSONL audit trail, a SQLite store or a postgres:// URL (default: the --db store)")
    .option("--head <seq:digest>", "a head kept outside the trail: the run's trail must hold it")
    .option("--run <run>", "the run --head is for (needed when the trail holds several runs)")
    .option("--checkpoint <file>", "a signed checkpoint: the log must hold exactly what it signed, and may extend it")
    .option("--key <key>", "the checkpoint's verifier key (leash keygen prints it)")
    .option("--key-file <file>", "a file holding the checkpoint's verifier key")
    .option(
      "--witness-key <key>",
      "a witness's cosigner verifier key: the checkpoint must carry its valid cosignature (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--witnesses <count>", "how many of the --witness-key witnesses must have cosigned (default: all)");
  return withCommonOptions(command).action(async (path: string | undefined, options: VerifyOptions) => {
    if (options.checkpoint !== undefined) {
      await verifyAgainstCheckpoint(path, { ...options, checkpoint: options.checkpoint });
      return;
    }
    if (options.key !== undefined || options.keyFile !== undefined)
      throw new CliError("invalid_option", "--key and --key-file go with --checkpoint FILE.");
    if (options.witnessKey.length > 0 || options.witnesses !== undefined)
      throw new CliError("invalid_option", "--witness-key and --witnesses go with --checkpoint FILE.");
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
