import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { LeashError } from "../errors/leash-error.js";
import type { StoreLocation } from "../operate/store-location.js";
import { openApproverRegistry } from "../inbox/approver-registry.js";
import type { HttpTokenFile } from "./gateway-config.js";

/** How `--http` knows who calls: the client a request's bearer token belongs to, if any. */
export interface HttpCredential {
  /** Which credential it checks, for the start line: `the token file ...`, `the approver tokens of ...`. */
  readonly label: string;
  /** The client an `Authorization` header's bearer token belongs to, or `undefined` (refused: 401). */
  clientOf(authorization: string | undefined): Promise<string | undefined>;
  close(): Promise<void>;
}

/** The longest bearer token read: longer ones are refused before any digest is made. */
const MAX_TOKEN_CHARS = 4096;

/** The token of `Authorization: Bearer <token>` (the scheme in any case), or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length > MAX_TOKEN_CHARS + 7) return undefined;
  const found = /^Bearer +([\x21-\x7e]+) *$/i.exec(authorization);
  return found?.[1];
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * A token kept in a file: its content, trimmed, read once at the start. Each request's token is
 * compared by the SHA-256 of both, in constant time, so the comparison's time tells nothing of the
 * token. A file others may read is named on stderr (`say`): anyone who reads it can call the tools.
 */
function tokenFileCredential(auth: HttpTokenFile, say: (line: string) => void): HttpCredential {
  let token: string;
  try {
    token = readFileSync(auth.tokenFile, "utf8").trim();
  } catch (error) {
    throw new LeashError(
      "invalid_config",
      `Could not read http.tokenFile ${auth.tokenFile}: ${(error as Error).message}`,
    );
  }
  if (token.length < 16 || token.length > MAX_TOKEN_CHARS || !/^[\x21-\x7e]+$/.test(token))
    throw new LeashError(
      "invalid_config",
      `http.tokenFile ${auth.tokenFile} must hold one token of 16 to ${MAX_TOKEN_CHARS} printable ASCII characters, without spaces.`,
    );
  if (process.platform !== "win32" && (statSync(auth.tokenFile).mode & 0o077) !== 0)
    say(
      `warning: http.tokenFile ${auth.tokenFile} may be read by other users (chmod 600 it): whoever reads it can call the tools.`,
    );
  const expected = sha256(token);
  return {
    label: `the token of ${auth.tokenFile} (client ${auth.client})`,
    clientOf: (authorization) => {
      const given = bearerToken(authorization);
      if (given === undefined) return Promise.resolve(undefined);
      return Promise.resolve(timingSafeEqual(sha256(given), expected) ? auth.client : undefined);
    },
    close: () => Promise.resolve(),
  };
}

/**
 * The credential `leash mcp serve --http` requires: the token of `http.tokenFile` when the config
 * names one, else the approver tokens of the store's registry (`leash approvers add NAME`), each
 * client named by its approver. Without either (no token file, no approver) the gateway does not
 * start: an HTTP port on 127.0.0.1 is open to every local process and user.
 */
export async function openHttpCredential(
  auth: HttpTokenFile | undefined,
  location: StoreLocation,
  say: (line: string) => void,
): Promise<HttpCredential> {
  if (auth !== undefined) return tokenFileCredential(auth, say);
  const registry = await openApproverRegistry(location);
  try {
    if ((await registry.list()).length === 0)
      throw new LeashError(
        "invalid_config",
        `leash mcp serve --http requires a credential, and there is none: add an approver (leash approvers add NAME ${location.args}) and give their token to the client as \`Authorization: Bearer <token>\`, or name a token file in the config (http.tokenFile).`,
      );
  } catch (error) {
    await registry.close().catch(() => undefined);
    throw error;
  }
  return {
    label: `the approver tokens of ${location.label}`,
    clientOf: async (authorization) => {
      const given = bearerToken(authorization);
      return given === undefined ? undefined : registry.nameOf(given);
    },
    close: () => registry.close(),
  };
}
