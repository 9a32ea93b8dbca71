import type { Hono } from "hono";
import { LeashError } from "../errors/leash-error.js";
import { answerFromInbox } from "./answer-from-inbox.js";
import { roleRefused } from "./approver-roles.js";
import { allowMoreOf, grantLikeThis, requestWithDigest } from "./grant-routes.js";
import type { InboxAnswered } from "./answer-from-inbox.js";
import { runHref } from "./html.js";
import { inboxProblem } from "./inbox-problem.js";
import { problemResponse, viewerOf } from "./inbox-context.js";
import type { InboxContext, InboxEnv, InboxParts } from "./inbox-context.js";
import { listGaveUpPage, listQuery, listRuns } from "./list-runs.js";
import { gaveUpPage } from "./pages/gave-up-page.js";
import { messagePage } from "./pages/message-page.js";
import { runPage } from "./pages/run-page.js";
import type { RunNotice } from "./pages/run-page.js";
import { runsPage } from "./pages/runs-page.js";
import { signInPage } from "./pages/sign-in-page.js";
import { runChain } from "./run-chain.js";
import { clearedSessionCookie, sessionCookie, sessionIdOf } from "./session-cookie.js";

function wait(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

async function loadRun(parts: InboxParts, runId: string) {
  const state = await parts.store.load(runId);
  if (state === null) throw new LeashError("run_not_found", `There is no run ${runId} in this store.`);
  return state;
}

async function showRun(c: InboxContext, parts: InboxParts, runId: string, notice: RunNotice): Promise<Response> {
  const state = await loadRun(parts, runId);
  const chain = await runChain(parts.store, state);
  return c.html(runPage(state, chain, viewerOf(c), notice).toString());
}

/** The run id of `?id=`, required. */
function idQuery(c: InboxContext): string {
  const runId = c.req.query("id");
  if (runId === undefined || runId === "") throw new LeashError("invalid_option", "Expected ?id= to name a run.");
  return runId;
}

/** The notice the session keeps for this run's page, taken (shown once). */
function takeFlash(c: InboxContext, runId: string): RunNotice {
  const session = c.get("session");
  const flash = session?.flash;
  if (session === undefined || flash === undefined || flash.runId !== runId) return undefined;
  delete session.flash;
  return flash.notice;
}

/** The answer of a refused form post, with a way back to the run. */
function refusedAnswer(c: InboxContext, runId: string, error: unknown): Response {
  const problem = inboxProblem(error);
  if (problem.status === 500) throw error;
  const title =
    problem.code === "stale_state" ? "This request changed" : problem.status === 404 ? "Not found" : "Refused";
  return c.html(
    messagePage({
      title,
      code: problem.code,
      message: problem.message,
      viewer: viewerOf(c),
      back: { href: runHref(runId), label: "Back to the run, to read it again" },
    }).toString(),
    problem.status,
  );
}

/** The inbox's pages: sign-in and sign-out, the run list, the gave-up list, a run and its answer form. */
export function addPageRoutes(app: Hono<InboxEnv>, parts: InboxParts): void {
  app.get("/signin", (c) => c.html(signInPage().toString()));

  app.post("/signin", async (c) => {
    const address = c.get("address");
    const form = await c.req.parseBody();
    const token = typeof form.token === "string" ? form.token.trim() : "";
    const name = token === "" ? undefined : await parts.registry.nameOf(token);
    if (name !== undefined) {
      // A good token is never made to wait for the failures before it (another's guesses from the same
      // address, say): it signs in at once.
      parts.throttle.succeeded(address);
      const session = parts.sessions.create(name, token, c.req.header("user-agent") ?? "");
      c.header("Set-Cookie", sessionCookie(session.id));
      return c.redirect("/", 303);
    }
    // One failed attempt per address is answered at a time, after its wait; others are refused at once.
    if (!parts.throttle.begin(address))
      return c.html(
        signInPage("Too many sign-in attempts at once from your address; try again in a moment.").toString(),
        429,
      );
    try {
      await wait(parts.throttle.delayFor(address));
      parts.throttle.failed(address);
    } finally {
      parts.throttle.release(address);
    }
    return c.html(signInPage("That token does not sign anyone in. Check it, or ask for a new one.").toString(), 401);
  });

  app.post("/signout", (c) => {
    const id = sessionIdOf(c.req.header("cookie"));
    if (id !== undefined) parts.sessions.end(id);
    c.header("Set-Cookie", clearedSessionCookie());
    return c.redirect("/signin", 303);
  });

  app.get("/", async (c) => {
    const query = listQuery(c.req.query("status"), c.req.query("page"), c.req.query("cursor"));
    return c.html(runsPage(await listRuns(parts.store, query, viewerOf(c).name), viewerOf(c)).toString());
  });

  app.get("/gave-up", async (c) => {
    const query = listQuery("gave_up", c.req.query("page"), c.req.query("cursor"));
    const shown = await listGaveUpPage(parts.store, query, viewerOf(c).name);
    return c.html(gaveUpPage(shown, viewerOf(c)).toString());
  });

  app.get("/runs/:id", (c) => showRun(c, parts, c.req.param("id"), takeFlash(c, c.req.param("id"))));
  // For every id, and the only way to the ids a browser resolves away in a path (`.`, `..`).
  app.get("/run", (c) => {
    const runId = idQuery(c);
    return showRun(c, parts, runId, takeFlash(c, runId));
  });

  const answer = async (c: InboxContext, runId: string): Promise<Response> => {
    const form = await c.req.parseBody();
    // "Approve, and allow N more like this for T": checked whole before the approval is recorded,
    // and the grant given after it, so it cannot also take this very call.
    const allowMore = form.decision === "approve_and_allow";
    let answered: InboxAnswered;
    let allowed = "";
    try {
      // An edit typed in the same form is not dropped: more calls "with exactly these arguments" and
      // an edit of this one cannot both be meant, so neither is recorded.
      if (allowMore && typeof form.args === "string" && form.args.trim() !== "")
        throw new LeashError(
          "invalid_option",
          "An edit of the arguments cannot be allowed more: approve the edit alone, or clear the edit to allow more calls with exactly the arguments asked. Nothing was recorded.",
        );
      // Allowing more calls gives a standing grant: the role approver's, as the call's answer is.
      if (allowMore && !c.get("roles").includes("approver"))
        throw roleRefused(c.get("approver"), c.get("roles"), "give a standing grant", "approver");
      const more = allowMore ? allowMoreOf(form, new Date()) : undefined;
      const request = allowMore ? await requestWithDigest(parts, runId, form.digest) : undefined;
      answered = await answerFromInbox(
        parts,
        runId,
        c.get("approver"),
        // "Allow more like this" approves the call as asked: the grant it gives is for these very arguments.
        allowMore
          ? { digest: form.digest, decision: "approve", note: form.note }
          : {
              digest: form.digest,
              decision: form.decision,
              note: form.note,
              raiseTo: form.raise_to,
              args: form.args,
            },
        c.get("address"),
        c.get("roles"),
      );
      if (more !== undefined && request !== undefined) {
        const grant = await grantLikeThis(parts, request, c.get("approver"), more, c.get("address"), c.get("roles"));
        allowed = `And ${grant.maxUses} more calls of ${grant.tool} with exactly these arguments are allowed until ${grant.expiresAt} (grant ${grant.id}).`;
      }
    } catch (error) {
      return refusedAnswer(c, runId, error);
    }
    // Spent: a copy of the page this form came from can post nothing more.
    const session = c.get("session");
    if (session !== undefined) {
      parts.sessions.rotateCsrf(session);
      // Said once, by the session itself: no link can make a page claim an answer was recorded.
      session.flash = {
        runId,
        notice: {
          granted: form.decision === "approve" || allowMore,
          recorded: answered.recorded,
          ...(answered.notice === undefined && allowed === ""
            ? {}
            : { text: [answered.notice, allowed].filter(Boolean).join(" ") }),
        },
      };
    }
    return c.redirect(runHref(runId), 303);
  };
  app.post("/runs/:id/answer", (c) => answer(c, c.req.param("id")));
  app.post("/run/answer", (c) => answer(c, idQuery(c)));

  app.notFound((c) => problemResponse(c, { status: 404, code: "not_found", message: "There is no such page." }));
}
