import { LeashError, messageOf } from "../errors/index.js";
import { verifyCosignature } from "./cosignature.js";
import { parseCosignerKey } from "./cosigner-keys.js";

/** What a checkpoint's check asks of its cosignatures: the witnesses' verifier keys and how many must cosign. */
interface WitnessQuorum {
  /** The witnesses' cosigner verifier keys. */
  keys: string[];
  /** How many of them must have a valid cosignature on the note. */
  required: number;
}

/**
 * Checks `witnessKeys` (cosigner verifier keys: `invalid_key` otherwise) and `witnesses` (how many valid
 * cosignatures are required: a whole number from 1 to the number of keys, default all of them;
 * `invalid_option` otherwise). Returns null when no key is given (and `witnesses` is not either).
 */
export function witnessQuorum(witnessKeys: unknown, witnesses: unknown): WitnessQuorum | null {
  if (witnessKeys === undefined) {
    if (witnesses !== undefined) {
      throw new LeashError("invalid_option", "Expected `witnesses` to go with `witnessKeys`, the keys that count.");
    }
    return null;
  }
  if (!Array.isArray(witnessKeys) || witnessKeys.some((key) => typeof key !== "string")) {
    throw new LeashError("invalid_option", "Expected `witnessKeys` to be a list of witnesses' verifier keys.");
  }
  for (const key of witnessKeys as string[]) parseCosignerKey(key);
  const keys = [...new Set(witnessKeys as string[])];
  const required = witnesses ?? keys.length;
  if (!Number.isSafeInteger(required) || (required as number) < 1 || (required as number) > keys.length) {
    throw new LeashError(
      "invalid_option",
      `Expected \`witnesses\` to be a whole number from 1 to ${keys.length}, the number of witness keys given.`,
    );
  }
  return { keys, required: required as number };
}

/**
 * Why a note lacks the cosignatures a quorum requires (one reason per key that gave none valid), or
 * null when at least `required` of the keys have a valid cosignature of the note's checkpoint on it.
 */
export function missingCosignatures(note: string, quorum: WitnessQuorum): string | null {
  const reasons: string[] = [];
  for (const key of quorum.keys) {
    try {
      verifyCosignature(note, key);
    } catch (error) {
      reasons.push(messageOf(error));
    }
  }
  const valid = quorum.keys.length - reasons.length;
  if (valid >= quorum.required) return null;
  return (
    `The checkpoint has ${valid} valid cosignature${valid === 1 ? "" : "s"} by the witnesses given, ` +
    `fewer than the ${quorum.required} required: ${reasons.join(" ")}`
  );
}
