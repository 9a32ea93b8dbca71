import { readFileSync } from "node:fs";
import { LeashError, messageOf } from "../errors/index.js";
import { parseVerifierKey } from "../evidence/note-keys.js";

/**
 * The logs a witness witnesses, from `ORIGIN=VERIFIERKEY` entries (an origin may be given several
 * times, one key each) and from a JSON config `{ "logs": { "<origin>": ["<verifier key>", ...] } }`,
 * as `startWitness` takes them. Throws `invalid_option` for an entry or a config of another form,
 * `invalid_key` for a bad key.
 *
 * @example
 * const logs = witnessLogs(["example.com/leash=example.com/leash+1a2b3c4d+AfU..."]);
 */
export function witnessLogs(entries: readonly string[], configFile?: string): Record<string, string[]> {
  const logs = new Map<string, string[]>();
  const add = (origin: string, key: string): void => {
    if (origin.length === 0 || /[\n\r]/.test(origin)) {
      throw new LeashError("invalid_option", "Expected each log's origin to be a non-empty line of text.");
    }
    parseVerifierKey(key.trim());
    logs.set(origin, [...(logs.get(origin) ?? []), key.trim()]);
  };
  if (configFile !== undefined) {
    for (const [origin, keys] of Object.entries(readConfig(configFile))) {
      for (const key of keys) add(origin, key);
    }
  }
  for (const entry of entries) {
    // The origin may hold `=` (a URL's query), a key never does before its base64 part: split at the last
    // `=` that is followed by a key's `name+id+` form.
    const match = /^(.*?)=([^=+\s]+\+[0-9a-f]{8}\+.*)$/s.exec(entry);
    if (match === null) {
      throw new LeashError(
        "invalid_option",
        "Expected --log ORIGIN=VERIFIERKEY (the log's origin, `=`, its verifier key).",
      );
    }
    add(match[1]!, match[2]!);
  }
  if (logs.size === 0) {
    throw new LeashError(
      "invalid_option",
      "Expected at least one log to witness (--log ORIGIN=VERIFIERKEY or --config).",
    );
  }
  return Object.fromEntries(logs);
}

function readConfig(file: string): Record<string, string[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new LeashError("invalid_option", `The witness config ${file} could not be read as JSON: ${messageOf(error)}`);
  }
  const logs = (parsed as { logs?: unknown } | null)?.logs;
  const valid =
    typeof logs === "object" &&
    logs !== null &&
    !Array.isArray(logs) &&
    Object.values(logs).every((keys) => Array.isArray(keys) && keys.every((key) => typeof key === "string"));
  if (!valid) {
    throw new LeashError(
      "invalid_option",
      `Expected the witness config ${file} to be { "logs": { "<origin>": ["<verifier key>", ...] } }.`,
    );
  }
  return logs as Record<string, string[]>;
}
