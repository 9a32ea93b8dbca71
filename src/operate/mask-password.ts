/** What a password is printed as. */
const MASK = "***";

/** A query parameter that carries a password, in any case (`password`, `PASSWORD`, `sslpassword`). */
const PASSWORD_PARAMETER = /password/i;

/**
 * A PostgreSQL URL as it may be printed: the password of its user-info part and of every query
 * parameter named like a password (`?password=`, any case) replaced by `***`. The one helper every
 * printer of a URL uses: labels, `--json`'s `db`, `verify`'s text and error messages.
 *
 * @example
 * maskUrl("postgres://app:s3cret@db/x?user=app&Password=s3cret"); // "postgres://app:***@db/x?user=app&Password=***"
 */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "the PostgreSQL URL given";
  }
  if (parsed.password !== "") parsed.password = MASK;
  const masked = [...parsed.searchParams.keys()].filter((name) => PASSWORD_PARAMETER.test(name));
  for (const name of new Set(masked)) {
    const count = parsed.searchParams.getAll(name).length;
    parsed.searchParams.delete(name);
    for (let index = 0; index < count; index++) parsed.searchParams.append(name, MASK);
  }
  return parsed.toString();
}

/** Every `postgres://` or `postgresql://` URL in a text, as {@link maskUrl} prints it. */
const URL_IN_TEXT = /postgres(?:ql)?:\/\/[^\s"'<>`]+/gi;

/**
 * Text (an error message, say) with every PostgreSQL URL in it masked ({@link maskUrl}), and every
 * `password=VALUE` pair outside a URL too (a libpq key-value string).
 */
export function maskPasswords(text: string): string {
  return text
    .replace(URL_IN_TEXT, (url) => maskUrl(url))
    .replace(/(\b\w*password\s*=\s*)(?!\*\*\*)('[^']*'|[^\s&;,)]+)/gi, `$1${MASK}`);
}
