/** The content security policy of every answer: the inbox's own script and style only, no frames. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The headers every answer of the inbox carries: pages, errors, assets, JSON and the event stream. */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

/** Sets {@link SECURITY_HEADERS} on a response's headers. */
export function secureHeaders(headers: Headers): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
}

/** Whether an address is a loopback one (the default, where only this machine can reach the inbox). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * The `Host` headers the inbox answers: the address it listens on, and for loopback the other names of
 * this machine's loopback. Any other name is a DNS-rebinding page reaching the inbox through a name
 * of its own, and is refused (421). Listening on every interface (`0.0.0.0`, `::`), the server cannot
 * know its names, and accepts any: `--host` warns about widening it.
 */
export function allowedHosts(host: string, port: number): ReadonlySet<string> | null {
  const bare = host.replace(/^\[|\]$/g, "");
  if (bare === "0.0.0.0" || bare === "::") return null;
  const names = isLoopback(bare)
    ? new Set(["127.0.0.1", "localhost", "[::1]", hostPart(bare)])
    : new Set([hostPart(bare)]);
  return new Set([...names].map((name) => `${name.toLowerCase()}:${port}`));
}

/** A host as it appears in a URL or a `Host` header: an IPv6 address in brackets. */
export function hostPart(host: string): string {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare.includes(":") ? `[${bare}]` : bare;
}
