import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { Command } from "commander";
import { signCheckpoint } from "../../evidence/checkpoint.js";
import { parseSignerKey } from "../../evidence/note-keys.js";
import { CliError, EXIT_FAILURE, EXIT_OPERATIONAL } from "../cli-error.js";
import { withCommonOptions, type CommonOptions } from "../common-options.js";
import { evidenceTarget } from "../evidence/evidence-target.js";
import { withEvidence } from "../evidence/open-evidence.js";
import { readCheckpointFile, unverifiedCheckpoint } from "../evidence/read-checkpoint.js";
import { signerKeyOf, type KeyOptions } from "../evidence/read-key.js";
import { cosignByWitnesses, witnessTargets, type WitnessOutcome } from "../evidence/witness-cosign.js";
import { printErrorLines, printJson, printLines } from "../print.js";

interface CheckpointOptions extends CommonOptions, KeyOptions {
  origin: string;
  out?: string;
  witness: string[];
  witnessKey: string[];
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

/** The size of the last checkpoint kept: the store's, else the `--out` file's (which this one replaces), else 0. */
function lastSize(latest: string | undefined, out: string | undefined): number {
  try {
    const note = latest ?? (out !== undefined && existsSync(out) ? readCheckpointFile(out) : undefined);
    return note === undefined ? 0 : unverifiedCheckpoint(note).size;
  } catch {
    return 0;
  }
}

/** Each witness's outcome on stderr; a refusal (exit 1) or an unreachable witness (exit 3) fails the command. */
function reportWitnesses(outcomes: readonly WitnessOutcome[], json: boolean | undefined): void {
  if (!json) {
    printErrorLines(
      outcomes
        .filter(({ lines }) => lines !== undefined)
        .map(({ url, verified }) =>
          verified
            ? `Cosigned by the witness at ${url}. Its cosignature verifies with its key.`
            : `Cosigned by the witness at ${url}. Its cosignature was NOT verified: no key was given (--witness URL=KEY or --witness-key KEY).`,
        ),
    );
  }
  const failed = outcomes.filter(({ error }) => error !== undefined);
  if (failed.length === 0) return;
  const refused = failed.some(({ error }) => error!.code === "witness_refused");
  throw new CliError(
    refused ? "witness_refused" : "witness_unavailable",
    `${failed.map(({ error }) => error!.message).join(" ")} The checkpoint was kept with the other cosignatures.`,
    refused ? EXIT_FAILURE : EXIT_OPERATIONAL,
  );
}

/**
 * `leash checkpoint [PATH] --key-file FILE --origin ORIGIN [--out FILE]`: signs the current tree head
 * of a JSONL trail (PATH) or a store (`--db`) as a C2SP tlog-checkpoint, keeps it in the store, and
 * writes the note to `--out` or prints it (`--json`: `{ origin, treeSize, rootHash, note, witnesses? }`). A log
 * whose chains do not verify is refused (`audit_invalid`): a checkpoint vouches for what it signs.
 * Each `--witness URL` or `URL=KEY` (a C2SP tlog-witness and its cosigner verifier key; `--witness-key`
 * gives keys for witnesses without one) is sent the checkpoint with the consistency proof from the
 * size it last cosigned; the note kept and printed carries only the cosignatures that verify with the
 * witness's key (or, without a key, that parse as cosignatures by another key than the log's: said
 * unverified on stderr). A witness that answers without one is a refusal. A witness's refusal
 * exits 1 (`witness_refused`, naming it), one that cannot be reached exits 3 (`witness_unavailable`).
 */
export function checkpointCommand(): Command {
  const command = new Command("checkpoint")
    .description("sign the log's current tree head (a C2SP checkpoint) with a signer key file; keep it and print it")
    .argument("[path]", "a JSONL audit trail, a SQLite store or a postgres:// URL (default: the --db store)")
    .requiredOption("--origin <origin>", "the log's name in the checkpoint, such as example.com/leash")
    .option("--key-file <file>", "the signer key's file (leash keygen writes one)")
    .option("--key <key>", "refused: a signer key is given by file only, never on the command line")
    .option("--out <file>", "write the signed checkpoint to this file instead of printing it")
    .option(
      "--witness <url>",
      "a C2SP tlog-witness to cosign the checkpoint, URL or URL=KEY with its cosigner verifier key (repeat for each)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      "--witness-key <key>",
      "a witness's cosigner verifier key, for each --witness given without its own =KEY (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    );
  return withCommonOptions(command).action(async (path: string | undefined, options: CheckpointOptions) => {
    const key = signerKeyOf(options);
    if (options.witnessKey.length > 0 && options.witness.length === 0) {
      throw new CliError("invalid_option", "--witness-key goes with --witness URL: it is the key of a witness asked.");
    }
    const witnesses = witnessTargets(options.witness, options.witnessKey);
    const target = evidenceTarget(path, options);
    const { note, outcomes } = await withEvidence(target, async (evidence) => {
      await evidence.sequence();
      const signed = await signCheckpoint(evidence.source, { key, origin: options.origin });
      const witnessed =
        options.witness.length === 0
          ? { note: signed, outcomes: [] }
          : await cosignByWitnesses(
              signed,
              witnesses,
              evidence,
              lastSize(await evidence.latestCheckpoint?.(), options.out),
            );
      await evidence.saveCheckpoint?.(witnessed.note, parseSignerKey(key).text);
      return witnessed;
    });
    if (options.out !== undefined) writeWhole(options.out, note);
    const { origin, size, root } = unverifiedCheckpoint(note);
    const rootHash = Buffer.from(root).toString("base64");
    if (options.json) {
      const answers = outcomes.map(({ url, verified, error }) => ({
        url,
        cosigned: error === undefined,
        verified,
        ...(error ?? {}),
      }));
      printJson({ origin, treeSize: size, rootHash, note, ...(answers.length === 0 ? {} : { witnesses: answers }) });
    } else if (options.out === undefined) {
      // The note as signed, byte for byte, so that `> FILE` keeps a checkpoint that verifies.
      process.stdout.write(note);
    } else {
      printLines([`Signed the tree of ${size} records of ${origin} (root ${rootHash}) into ${options.out}.`]);
    }
    reportWitnesses(outcomes, options.json);
  });
}
