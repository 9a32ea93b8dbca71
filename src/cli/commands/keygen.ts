import { closeSync, fchmodSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { Command } from "commander";
import { keygen } from "../../evidence/note-keys.js";
import { CliError } from "../cli-error.js";
import { printErrorLines, printJson } from "../print.js";

interface KeygenOptions {
  name: string;
  out?: string;
  force?: boolean;
  json?: boolean;
}

/**
 * The file a signer key is written to when `--out` names none: the key's name with every character
 * other than a letter, a digit, `.`, `_` or `-` made `_`, then `.key`, in the working folder
 * (`example.com/leash` gives `example.com_leash.key`).
 *
 * @example
 * defaultKeyFile("example.com/leash"); // "example.com_leash.key"
 */
function defaultKeyFile(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
  return `${safe}.key`;
}

/**
 * Writes `text` to a new file of mode 0600. An existing file is refused (`key_exists`) unless
 * `force`, which replaces it through a fresh file renamed over it, so the key is never readable by
 * others, not even for a moment.
 */
function writeSecret(path: string, text: string, force: boolean): void {
  const target = force ? `${path}.${process.pid}.tmp` : path;
  let descriptor: number;
  try {
    descriptor = openSync(target, "wx", 0o600);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "EEXIST" && !force)
      throw new CliError("key_exists", `${path} exists; give another --out FILE, or --force to replace it.`);
    throw new CliError("invalid_option", `Could not write the key to ${path}: ${(error as Error).message}`);
  }
  try {
    // The mode given to open is cut by the umask; it can only be narrower than 0600, but set it exactly.
    fchmodSync(descriptor, 0o600);
    writeSync(descriptor, text);
  } finally {
    closeSync(descriptor);
  }
  if (force) {
    try {
      renameSync(target, path);
    } catch (error) {
      rmSync(target, { force: true });
      throw new CliError("invalid_option", `Could not write the key to ${path}: ${(error as Error).message}`);
    }
  }
}

/**
 * `leash keygen --name NAME [--out FILE] [--force]`: makes an Ed25519 key pair for checkpoints, writes
 * the signer key to a new file of mode 0600 and prints the verifier key (`--json`: `{ name,
 * verifierKey, keyFile }`). The signer key is never printed.
 */
export function keygenCommand(): Command {
  return new Command("keygen")
    .description(
      "make a key pair for signing checkpoints: write the signer key to a file (0600), print the verifier key",
    )
    .requiredOption("--name <name>", "the key's name, such as example.com/leash (no space, no +)")
    .option("--out <file>", "the file for the signer key (default: the name made safe, then .key)")
    .option("--force", "replace the file if it exists")
    .option("--json", "print one JSON document on stdout: { name, verifierKey, keyFile }")
    .action((options: KeygenOptions) => {
      const { signerKey, verifierKey } = keygen(options.name);
      const keyFile = options.out ?? defaultKeyFile(options.name);
      writeSecret(keyFile, `${signerKey}\n`, options.force === true);
      if (options.json) {
        printJson({ name: options.name, verifierKey, keyFile: resolve(keyFile) });
        return;
      }
      process.stdout.write(`${verifierKey}\n`);
      printErrorLines([
        `Wrote the signer key to ${resolve(keyFile)} (mode 0600): keep it secret. ` +
          "The verifier key above is for whoever checks your checkpoints.",
      ]);
    });
}
