import type { MiddlewareHandler } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { ApproverIdentity } from "./approver-registry.js";
import { mayAnswerAny } from "./approver-roles.js";
import { isApiPath, problemResponse } from "./inbox-context.js";
import type { InboxEnv, InboxParts } from "./inbox-context.js";
import { sameSecret } from "./session-store.js";
import { sessionIdOf } from "./session-cookie.js";
import { secureHeaders } from "./security-headers.js";

type Guard = MiddlewareHandler<InboxEnv>;

/** The security headers on every answer, errors and assets included. */
export function withSecurityHeaders(): Guard {
  return async (c, next) => {
    await next();
    secureHeaders(c.res.headers);
  };
}

/**
 * Refuses a `Host` the server does not listen on (421): a page of another site that rebinds its name
 * to 127.0.0.1 reaches the inbox with its own name in `Host`, and is turned away before anything else.
 */
export function checkHost(parts: InboxParts): Guard {
  return async (c, next) => {
    const host = (c.req.header("host") ?? "").toLowerCase();
    if (parts.hosts !== null && !parts.hosts.has(host)) {
      return c.text("Misdirected request: this inbox answers only at the address it listens on.", 421);
    }
    let address = "unknown";
    try {
      address = getConnInfo(c).remote.address ?? "unknown";
    } catch {
      // Not behind the node server (a test's app.request): the address stays unknown.
    }
    c.set("address", address);
    await next();
  };
}

/**
 * Whether a POST comes from the inbox's own pages: its `Origin`, when sent, is the inbox's own. Under
 * `Referrer-Policy: no-referrer` a browser sends `Origin: null` even for the inbox's own forms; such a
 * request passes only when the browser also says `Sec-Fetch-Site: same-origin` (a header no page can
 * set). A browser that says the request is cross-site or same-site is refused whatever its `Origin`.
 */
function sameOrigin(
  origin: string | undefined,
  host: string | undefined,
  fetchSite: string | undefined,
  publicOrigins: ReadonlySet<string> | undefined,
): boolean {
  if (fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none") return false;
  if (origin === undefined) return true;
  if (origin === "null") return fetchSite === "same-origin";
  const given = origin.toLowerCase();
  // The public address given with `--base` (a proxy in front, on https) is the inbox's own too.
  if (publicOrigins?.has(given) === true) return true;
  return host !== undefined && given === `http://${host.toLowerCase()}`;
}

/** The Bearer token of an `Authorization` header, if any. */
function bearerOf(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * Lets only a signed-in approver through: a Bearer token the registry knows, or a session cookie
 * whose approver the registry still knows by that token (a removed approver is signed out at once).
 * Otherwise an HTML route answers 303 to `/signin` and an API route 401 `unauthorized`. Every POST
 * must come from the inbox's own origin, and a POST of a cookie session must carry the session's
 * CSRF token (`_csrf` in a form, `X-CSRF-Token` for JSON); else 403 `csrf_refused`. Only the
 * sign-in page and the inbox's own stylesheet, script and icon are served to anyone: they hold no run data.
 * A POST (but signing out) of a person whose roles answer nothing (`viewer` alone) is 403 `role_refused`.
 * A one-time link's page is served to whoever holds its token (its POST checked for origin as every POST).
 */
export function requireApprover(parts: InboxParts): Guard {
  return async (c, next) => {
    if (
      c.req.method === "POST" &&
      !sameOrigin(c.req.header("origin"), c.req.header("host"), c.req.header("sec-fetch-site"), parts.origins)
    )
      return problemResponse(c, {
        status: 403,
        code: "csrf_refused",
        message: "This form was sent from another site; nothing was done.",
      });
    const path = c.req.path;
    if (path === "/signin" || path === "/favicon.ico" || path.startsWith("/assets/")) return next();
    // A one-time link is its own credential, bound to one request and one person (`link-routes`). Its
    // form is held to what a signed-in form is: sent by a browser from the inbox's own page.
    if (path.startsWith("/link/")) {
      if (c.req.method === "POST" && c.req.header("sec-fetch-site") !== "same-origin")
        return problemResponse(c, {
          status: 403,
          code: "csrf_refused",
          message:
            "A link's form must be sent from its own page in a browser (Sec-Fetch-Site: same-origin); nothing was done.",
        });
      return next();
    }
    const bearer = bearerOf(c.req.header("authorization"));
    // Name and roles in one lookup, on every request: a change of roles holds at once.
    let approver: ApproverIdentity | undefined;
    if (bearer !== undefined) {
      approver = await parts.registry.whoIs(bearer);
      c.set("session", undefined);
    } else {
      const id = sessionIdOf(c.req.header("cookie"));
      const session = id === undefined ? undefined : parts.sessions.touch(id, c.req.header("user-agent") ?? "");
      if (session !== undefined) {
        const who = await parts.registry.whoIs(session.token);
        if (who !== undefined && who.name === session.name) {
          approver = who;
          c.set("session", session);
        } else parts.sessions.end(session.id);
      }
    }
    if (approver === undefined) {
      if (isApiPath(path))
        return c.json({ error: { code: "unauthorized", message: "Sign in: send Authorization: Bearer TOKEN." } }, 401);
      return c.redirect("/signin", 303);
    }
    c.set("approver", approver.name);
    c.set("roles", approver.roles);
    const session = c.get("session");
    if (c.req.method === "POST" && session !== undefined) {
      // A browser sends it on the inbox's own forms and fetches; a program replaying a stolen cookie
      // must forge it (which a program can: this narrows the attack, the guide says what does not).
      if (c.req.header("sec-fetch-site") !== "same-origin")
        return problemResponse(c, {
          status: 403,
          code: "csrf_refused",
          message:
            "A signed-in form must come from the inbox's own page in a browser (Sec-Fetch-Site: same-origin); nothing was done.",
        });
      const given = isApiPath(path)
        ? c.req.header("x-csrf-token")
        : await formField(
            c.req.raw.headers.get("content-type"),
            () => c.req.parseBody(),
            "_csrf",
            c.req.header("x-csrf-token"),
          );
      if (given === undefined || !sameSecret(given, session.csrf))
        return problemResponse(c, {
          status: 403,
          code: "csrf_refused",
          message:
            "This form did not carry your session's token (an old page, or a form from another site); nothing was done.",
        });
    }
    // Every POST but signing out answers, grants or revokes: a person who may answer nothing (a
    // viewer) is refused here, before any route reads the form. Each route checks the role it needs.
    if (c.req.method === "POST" && path !== "/signout" && !mayAnswerAny(approver.roles))
      return problemResponse(c, {
        status: 403,
        code: "role_refused",
        message: `${approver.name} can view only (roles: ${approver.roles.join(", ")}): answering, granting and revoking take the role approver or spender. Nothing was recorded.`,
      });
    await next();
  };
}

async function formField(
  contentType: string | null,
  parse: () => Promise<Record<string, unknown>>,
  name: string,
  fallback: string | undefined,
): Promise<string | undefined> {
  if (contentType === null || !/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(contentType))
    return fallback;
  const value = (await parse())[name];
  return typeof value === "string" ? value : fallback;
}

/**
 * What an event stream asks before each event and at each heartbeat: whether the session it was
 * opened with is still there (not signed out, not expired) and its token, or the Bearer token, still
 * names the same approver in the registry (not removed).
 */
export function stillSignedIn(
  parts: InboxParts,
  approver: string,
  sessionId: string | undefined,
  authorization: string | undefined,
): () => Promise<boolean> {
  const bearer = bearerOf(authorization);
  return async () => {
    if (sessionId !== undefined) {
      const session = parts.sessions.get(sessionId);
      if (session === undefined) return false;
      return (await parts.registry.nameOf(session.token)) === approver;
    }
    return bearer !== undefined && (await parts.registry.nameOf(bearer)) === approver;
  };
}
