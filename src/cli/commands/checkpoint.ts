import { renameSync, rmSync, writeFileSync } from "node:fs";
import { Command } from "commander";
import { signCheckpoint } from "../../index.js";
import { CliError } from "../cli-error.js";
import { withCommonOptions, type CommonOptions } from "../common-options.js";
import { evidenceTarget } from "../evidence/evidence-target.js";
import { withEvidence } from "../evidence/open-evidence.js";
import { unverifiedCheckpoint } from "../evidence/read-checkpoint.js";
import { signerKeyOf, type KeyOptions } from "../evidence/read-key.js";
import { printJson } from "../print.js";

interface CheckpointOptions extends CommonOptions, KeyOptions {
  origin: string;
  out?: string;
}

/** Writes a file whole or not at all: a fresh file beside it, renamed over it. */
function writeWhole(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text, { flag: "wx" });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new CliError("invalid_option", `Could not write the checkpoint to ${path}: ${(error as Error).message}`);
  }
}

/**
 * `leash checkpoint [PATH] --key-file FILE --origin ORIGIN [--out FILE]`: signs the current tree head
 * of a JSONL trail (PATH) or a store (`--db`) as a C2SP tlog-checkpoint, keeps it in the store, and
 * writes the note to `--out` or prints it (`--json`: `{ origin, treeSize, rootHash, note }`). A log
 * whose chains do not verify is refused (`audit_invalid`): a checkpoint vouches for what it signs.
 */
export function checkpointCommand(): Command {
  const command = new Command("checkpoint")
    .description("sign the log's current tree head (a C2SP checkpoint) with a signer key file; keep it and print it")
    .argument("[path]", "a JSONL audit trail, a SQLite store or a postgres:// URL (default: the --db store)")
    .requiredOption("--origin <origin>", "the log's name in the checkpoint, such as example.com/leash")
    .option("--key-file <file>", "the signer key's file (leash keygen writes one)")
    .option("--key <key>", "refused: a signer key is given by file only, never on the command line")
    .option("--out <file>", "write the signed checkpoint to this file instead of printing it");
  return withCommonOptions(command).action(async (path: string | undefined, options: CheckpointOptions) => {
    const key = signerKeyOf(options);
    const target = evidenceTarget(path, options);
    const note = await withEvidence(target, async (evidence) => {
      await evidence.sequence();
      const signed = await signCheckpoint(evidence.log, { key, origin: options.origin });
      await evidence.saveCheckpoint?.(signed);
      return signed;
    });
    if (options.out !== undefined) writeWhole(options.out, note);
    if (options.json) {
      const { origin, size, root } = unverifiedCheckpoint(note);
      printJson({ origin, treeSize: size, rootHash: Buffer.from(root).toString("base64"), note });
    } else if (options.out === undefined) {
      // The note as signed, byte for byte, so that `> FILE` keeps a checkpoint that verifies.
      process.stdout.write(note);
    }
  });
}
