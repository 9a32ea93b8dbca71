// One-time approval links for the inbox's tests: made with the real `leash link` bin, opened and
// posted over real sockets against the real `leash serve`.
import assert from "node:assert/strict";
import { storeLocation } from "../../src/cli/common-options.js";
import { openLinkStore } from "../../src/inbox/link-store.js";
import type { LinkInfo } from "../../src/inbox/link-store.js";
import type { StoreLocation } from "../../src/operate/store-location.js";
import { leash } from "../cli/cli-helpers.js";
import type { CliStore } from "../cli/cli-stores.js";
import type { Served } from "./serve-helpers.js";

/** The location a CLI store's `--db`/`--schema` name. */
export function locationOf(target: CliStore): StoreLocation {
  const [, db, , schema] = target.args;
  return storeLocation(schema === undefined ? { db } : { db, schema });
}

/** Makes a link with `leash link RUN --as NAME --json --base <the inbox>`; returns its URL, token and expiry. */
export function makeLink(
  target: CliStore,
  served: Served,
  runId: string,
  name: string,
  extra: string[] = [],
): { url: string; token: string; expiresAt: string } {
  const made = leash(["link", runId, "--as", name, "--base", served.origin, "--json", ...target.args, ...extra], {
    cwd: target.cwd,
  });
  assert.equal(made.status, 0, made.stderr);
  const { url, expiresAt } = JSON.parse(made.stdout) as { url: string; expiresAt: string };
  const token = url.slice(`${served.origin}/link/`.length);
  assert.equal(url, `${served.origin}/link/${token}`);
  return { url, token, expiresAt };
}

/** Posts a link's form as a browser does from that page (its `Origin`, `Sec-Fetch-Site: same-origin`). */
export function postLink(
  served: Served,
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = { Origin: served.origin, "Sec-Fetch-Site": "same-origin" },
): Promise<Response> {
  return fetch(url, { method: "POST", body: new URLSearchParams(fields), headers, redirect: "manual" });
}

/** The link a token belongs to, as its store holds it. */
export async function linkRow(target: CliStore, token: string): Promise<LinkInfo | undefined> {
  const links = await openLinkStore(locationOf(target));
  try {
    return await links.find(token);
  } finally {
    await links.close();
  }
}
