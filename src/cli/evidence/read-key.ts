import { readFileSync } from "node:fs";
import { CliError } from "../cli-error.js";

/** The key options of the evidence commands. */
export interface KeyOptions {
  /** A key's text, on the command line: verifier keys only. */
  key?: string;
  /** A file that holds a key's text. */
  keyFile?: string;
}

const SIGNER_PREFIX = "PRIVATE+KEY+";

/** The text of a key file, without the line end a file ends with; `key_not_found` when it cannot be read. */
export function readKeyFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliError(
      "key_not_found",
      code === "ENOENT"
        ? `There is no key file at ${path}.`
        : `Could not read the key file ${path}: ${(error as Error).message}`,
    );
  }
  return text.replace(/\r?\n$/, "");
}

/**
 * The signer key of a command that signs: from `--key-file` only. A signer key given with `--key` is
 * refused, and nothing is signed: on the command line it would be visible to every user of the machine
 * in the process list, and kept in the shell's history.
 */
export function signerKeyOf(options: KeyOptions): string {
  if (options.key !== undefined) {
    const why = options.key.startsWith(SIGNER_PREFIX)
      ? "--key was given a signer key, which on a command line is visible to every user of the machine in the process list (and kept in the shell's history): treat it as leaked, make a new one with leash keygen"
      : "--key takes a verifier key, and signing needs a signer key";
    throw new CliError("invalid_option", `${why}; give the signer key's file with --key-file FILE.`);
  }
  if (options.keyFile === undefined) {
    throw new CliError("invalid_option", "Give the signer key's file with --key-file FILE (leash keygen writes one).");
  }
  return readKeyFile(options.keyFile);
}

/**
 * The verifier key of a command that checks: `--key TEXT` or `--key-file FILE` (one of them). A signer
 * key is refused in either: checking needs only the public half, and a signer key on a command line is
 * visible in the process list.
 */
export function verifierKeyOf(options: KeyOptions): string {
  if ((options.key === undefined) === (options.keyFile === undefined)) {
    throw new CliError("invalid_option", "Give the verifier key with --key KEY or --key-file FILE (one of them).");
  }
  const key = options.key ?? readKeyFile(options.keyFile!);
  if (key.startsWith(SIGNER_PREFIX)) {
    const where =
      options.key !== undefined
        ? "--key was given a signer key, which on a command line is visible to every user of the machine in the process list: treat it as leaked"
        : "the key file holds a signer key";
    throw new CliError("invalid_option", `${where}; checking needs only the verifier key, which leash keygen prints.`);
  }
  return key;
}
