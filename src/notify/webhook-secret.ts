import { readFileSync, statSync } from "node:fs";
import { createHmac } from "node:crypto";
import { LeashError } from "../errors/index.js";

/** The prefix Standard Webhooks gives a secret: what follows it is the key, in base64. */
const SECRET_PREFIX = "whsec_";

/**
 * The shortest key accepted, in bytes. Standard Webhooks recommends keys of 24 to 64 bytes; a shorter
 * key is refused rather than used, so that a secret typed by hand does not sign every event weakly.
 */
const MIN_KEY_BYTES = 24;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The keys a deliverer signs with: one or more (several while a secret is rotated, each attempt then
 * carrying one signature per key). The keys are kept in a private field, so that printing or logging
 * this object never shows them.
 */
export class WebhookSecrets {
  readonly #keys: readonly Buffer[];

  /** Use {@link webhookSecrets} or {@link readWebhookSecretFile}; the keys given here are taken as checked. */
  private constructor(keys: readonly Buffer[]) {
    this.#keys = keys;
  }

  /** @internal Builds the set from keys already checked. */
  static of(keys: readonly Buffer[]): WebhookSecrets {
    return new WebhookSecrets(keys);
  }

  /** How many secrets sign each attempt. */
  get count(): number {
    return this.#keys.length;
  }

  /**
   * The `webhook-signature` header's value for one attempt: `v1,<base64>` per key, space-separated,
   * each the HMAC-SHA256 of `${id}.${timestamp}.${body}` that Standard Webhooks specifies.
   */
  signature(id: string, timestamp: number, body: string): string {
    const signed = `${id}.${timestamp}.${body}`;
    return this.#keys.map((key) => `v1,${createHmac("sha256", key).update(signed).digest("base64")}`).join(" ");
  }

  /** Never the keys: what `String(secrets)` and a template literal show. */
  toString(): string {
    return `WebhookSecrets(${this.#keys.length})`;
  }

  /** Never the keys: what `JSON.stringify` shows. */
  toJSON(): string {
    return this.toString();
  }
}

/**
 * One secret's key, checked: `whsec_` then canonical base64 of at least {@link MIN_KEY_BYTES} bytes.
 * `where` names it in the message; the secret itself is never quoted, not even in part.
 */
function keyOf(text: string, where: string): Buffer {
  if (!text.startsWith(SECRET_PREFIX))
    throw new LeashError(
      "invalid_option",
      `${where} is not a webhook secret: expected \`whsec_\` followed by base64 (make one with: echo "whsec_$(openssl rand -base64 32)").`,
    );
  const encoded = text.slice(SECRET_PREFIX.length);
  const key = BASE64.test(encoded) ? Buffer.from(encoded, "base64") : undefined;
  // Canonical base64 only: a decoder that skips what it cannot read would sign with another key than
  // the receiver's library decodes from the same text.
  if (key === undefined || key.toString("base64") !== encoded)
    throw new LeashError(
      "invalid_option",
      `${where} is not a webhook secret: what follows \`whsec_\` must be base64 (A-Z, a-z, 0-9, + and /, padded with =).`,
    );
  if (key.length < MIN_KEY_BYTES)
    throw new LeashError(
      "invalid_option",
      `${where} is too short: its key has ${key.length} bytes, and a webhook secret needs at least ${MIN_KEY_BYTES} (make one with: echo "whsec_$(openssl rand -base64 32)").`,
    );
  return key;
}

function keysOf(texts: readonly string[], where: (index: number) => string): WebhookSecrets {
  const keys: Buffer[] = [];
  texts.forEach((text, index) => {
    const key = keyOf(text, where(index));
    // The same secret twice signs twice with one key: kept once.
    if (!keys.some((known) => known.equals(key))) keys.push(key);
  });
  return WebhookSecrets.of(keys);
}

/**
 * The secrets of `notify: { secret }`: one `whsec_...` string, or several while one is rotated.
 * Anything else is refused (`invalid_option`), without quoting the secret.
 *
 * @example
 * const secrets = webhookSecrets(process.env.LEASH_WEBHOOK_SECRET ?? "");
 */
export function webhookSecrets(secret: string | readonly string[]): WebhookSecrets {
  const texts = typeof secret === "string" ? [secret] : secret;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((text) => typeof text === "string"))
    throw new LeashError(
      "invalid_option",
      "Expected `notify.secret` to be a webhook secret (`whsec_...`) or a non-empty array of them.",
    );
  return keysOf(
    texts.map((text) => text.trim()),
    (index) => (texts.length === 1 ? "`notify.secret`" : `\`notify.secret[${index}]\``),
  );
}

/**
 * Reads the secrets of `--webhook-secret-file FILE`: the file's surrounding whitespace ignored, one
 * `whsec_...` secret per non-empty line (several lines while a secret is rotated: each signs every
 * attempt). A file that its group or others may read is refused, as is anything that is not a
 * secret (`invalid_option`); a message never quotes a secret.
 *
 * @example
 * const secrets = readWebhookSecretFile("/etc/leash/webhook-secret");
 */
export function readWebhookSecretFile(path: string): WebhookSecrets {
  let mode: number;
  let isFile: boolean;
  try {
    const stats = statSync(path);
    mode = stats.mode;
    isFile = stats.isFile();
  } catch (error) {
    throw new LeashError(
      "invalid_option",
      `Could not read the webhook secret file ${path}: ${(error as Error).message}`,
    );
  }
  if (!isFile) throw new LeashError("invalid_option", `The webhook secret file ${path} is not a file.`);
  // A secret others can read signs events that anyone on the machine could forge: refused, as ssh
  // refuses a private key others can read. Windows keeps no such bits.
  if (process.platform !== "win32" && (mode & 0o077) !== 0)
    throw new LeashError(
      "invalid_option",
      `The webhook secret file ${path} can be read by others (mode ${(mode & 0o777).toString(8).padStart(3, "0")}): run \`chmod 600 ${path}\`.`,
    );
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new LeashError(
      "invalid_option",
      `Could not read the webhook secret file ${path}: ${(error as Error).message}`,
    );
  }
  const lines = text
    .split(/\r?\n/)
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== "");
  if (lines.length === 0)
    throw new LeashError(
      "invalid_option",
      `The webhook secret file ${path} holds no secret (one \`whsec_...\` per line).`,
    );
  return keysOf(
    lines.map(({ line }) => line),
    (index) => `Line ${lines[index]?.number ?? index + 1} of the webhook secret file ${path}`,
  );
}
