import { LeashError } from "../errors/index.js";

/**
 * Checks an http(s) URL option: where events are posted (`url`) or the inbox's address (`base`).
 * Any host is taken, loopback included: the URL is the operator's configuration. A URL with a user
 * name or password is refused, since fetch refuses to send one.
 */
export function checkHttpUrl(value: unknown, name: string): URL {
  if (typeof value !== "string" || !URL.canParse(value))
    throw new LeashError("invalid_option", `Expected \`${name}\` to be an http:// or https:// URL.`);
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new LeashError(
      "invalid_option",
      `Expected \`${name}\` to be an http:// or https:// URL, not ${url.protocol}.`,
    );
  if (url.username !== "" || url.password !== "")
    throw new LeashError(
      "invalid_option",
      `Expected \`${name}\` to hold no user name or password; put a credential in the URL's path or query instead.`,
    );
  return url;
}

/**
 * The inbox's address as events name it: an http(s) URL without query or fragment, its trailing
 * slashes dropped, so that a run's page is `${base}/runs/ID` whether `--base` ended in `/` or not.
 */
export function checkBaseUrl(value: unknown, name: string): string {
  const url = checkHttpUrl(value, name);
  if (url.search !== "" || url.hash !== "")
    throw new LeashError(
      "invalid_option",
      `Expected \`${name}\` to be the inbox's address, without a query or fragment.`,
    );
  return url.href.replace(/\/+$/, "");
}

/** Whether a browser would resolve this path segment away (`.` and `..`, in any spelling it reads as one). */
function normalizedAway(runId: string): boolean {
  return /^(\.|%2e){1,2}$/i.test(runId);
}

/**
 * The address of a run's page in the inbox under `base`: `/runs/ID`, or `/run?id=ID` for an id a
 * browser would resolve away in a path, as the inbox's own links are (`runHref` of `src/inbox/html.ts`).
 * The page shows the run to a signed-in person; it answers nothing by itself, so an event that
 * carries it can be forwarded anywhere.
 */
export function runPageUrl(base: string, runId: string): string {
  return normalizedAway(runId)
    ? `${base}/run?id=${encodeURIComponent(runId)}`
    : `${base}/runs/${encodeURIComponent(runId)}`;
}
