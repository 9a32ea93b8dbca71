import { Hono } from "hono";
import { escapeText } from "../operate/escape-text.js";
import { maskPasswords } from "../operate/mask-password.js";
import { addApiRoutes } from "./api-routes.js";
import { limitBodies } from "./body-limits.js";
import { INBOX_CSS } from "./assets/inbox-css.js";
import { INBOX_JS } from "./assets/inbox-js.js";
import { problemResponse } from "./inbox-context.js";
import type { InboxEnv, InboxParts } from "./inbox-context.js";
import { checkHost, requireApprover, stillSignedIn, withSecurityHeaders } from "./inbox-guards.js";
import { inboxProblem } from "./inbox-problem.js";
import { addPageRoutes } from "./page-routes.js";
import { addGrantRoutes } from "./grant-routes.js";
import { addBudgetRoutes } from "./budget-routes.js";
import { addLinkRoutes, loggedPath } from "./link-routes.js";
import { secureHeaders } from "./security-headers.js";

/**
 * The web inbox as a Hono app: the security headers on every answer, the `Host` check, sign-in and
 * CSRF checks, then the pages, the JSON routes, the event stream and the inbox's own assets.
 */
export function inboxApp(parts: InboxParts): Hono<InboxEnv> {
  const app = new Hono<InboxEnv>();
  app.use("*", withSecurityHeaders());
  app.use("*", checkHost(parts));
  app.use("*", limitBodies());
  app.use("*", requireApprover(parts));

  app.get("/assets/inbox.css", (c) => c.body(INBOX_CSS, 200, { "Content-Type": "text/css; charset=utf-8" }));
  app.get("/assets/inbox.js", (c) => c.body(INBOX_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" }));

  // Browsers ask for it on their own; an empty answer keeps a 404 out of their console.
  app.get("/favicon.ico", (c) => c.body(null, 204));

  app.on(["GET", "HEAD"], "/events", (c) => {
    const headers = { "Content-Type": "text/event-stream; charset=utf-8" };
    // A HEAD gets the headers only: it never subscribes, since no body would ever be read to end it.
    if (c.req.method === "HEAD") return c.body(null, 200, headers);
    const runId = c.req.query("run");
    const response = parts.streams.response(
      runId === "" ? undefined : runId,
      c.req.raw.signal,
      stillSignedIn(parts, c.get("approver"), c.get("session")?.id, c.req.header("authorization")),
    );
    secureHeaders(response.headers);
    return response;
  });

  addApiRoutes(app, parts);
  addGrantRoutes(app, parts);
  addBudgetRoutes(app, parts);
  addLinkRoutes(app, parts);
  addPageRoutes(app, parts);

  app.onError((error, c) => {
    let problem = inboxProblem(error);
    const signedIn = (c.get("approver") as string | undefined) !== undefined;
    // The line may quote run data (a run id in the path): escaped, as every line the CLI prints, with
    // any password in a connection string masked.
    if (problem.status === 500 || (problem.status === 503 && !signedIn))
      process.stderr.write(
        `${escapeText(maskPasswords(`leash serve: ${c.req.method} ${loggedPath(c.req.path)} failed: ${error.stack ?? error.message}`))}\n`,
      );
    // Someone not signed in learns only that the store is out of reach, never where it is or why.
    if (problem.status === 503 && !signedIn)
      problem = { status: 503, code: "store_unavailable", message: "The inbox cannot reach its store." };
    const response = problemResponse(c, problem);
    secureHeaders(response.headers);
    return response;
  });
  return app;
}
