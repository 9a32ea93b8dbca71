/** The name of the inbox's session cookie. */
const SESSION_COOKIE = "leash_session";

/** The `Set-Cookie` value that starts a session: HttpOnly, SameSite=Strict, for the whole inbox. */
export function sessionCookie(id: string): string {
  return `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/`;
}

/** The `Set-Cookie` value that ends it. */
export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
}

/** The session id a `Cookie` header carries, if any. */
export function sessionIdOf(cookieHeader: string | undefined): string | undefined {
  if (cookieHeader === undefined) return undefined;
  for (const part of cookieHeader.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === SESSION_COOKIE) {
      const value = rest.join("=");
      return value === "" ? undefined : value;
    }
  }
  return undefined;
}
