import type { Hono } from "hono";
import { LeashError } from "../errors/leash-error.js";
import type { RunState } from "../state/run-state.js";
import type { AnswerOrigin } from "../operate/answer-origin.js";
import { escapeText } from "../operate/escape-text.js";
import { maskPasswords } from "../operate/mask-password.js";
import { waitingRequests } from "../operate/waiting-requests.js";
import type { WaitingRequest } from "../operate/waiting-requests.js";
import { answerFromInbox } from "./answer-from-inbox.js";
import type { InboxContext, InboxEnv, InboxParts } from "./inbox-context.js";
import { inboxProblem } from "./inbox-problem.js";
import type { InboxProblem } from "./inbox-problem.js";
import type { LinkInfo } from "./link-store.js";
import { messagePage } from "./pages/message-page.js";
import { linkAnsweredPage, linkGonePage, linkPage } from "./pages/link-page.js";
import { raiseProblem } from "../approvals/raise-problem.js";
import { rolesAllowAnswer } from "./approver-roles.js";
import type { Role } from "./approver-roles.js";

/** The longest note kept with an answer, as on a run's page. */
const MAX_NOTE_LENGTH = 2000;

/** A request's path as a log line may show it: a link's token is never written anywhere. */
export function loggedPath(path: string): string {
  return path.replace(/^\/link\/[^/]*/, "/link/[token]");
}

/** Why a link answers nothing (a 410), or undefined when it still works at `now`. */
function goneReason(link: LinkInfo | undefined, now: Date): string | undefined {
  if (link === undefined)
    return "This link is not known: it was mistyped, or the person it answers as was removed from the approvers.";
  if (link.usedAt !== undefined) return `This link was used already, at ${link.usedAt}: a link answers once.`;
  if (Date.parse(link.expiresAt) <= now.getTime()) return `This link expired at ${link.expiresAt}.`;
  return undefined;
}

/** A refusal as a page for someone not signed in: no way into the inbox but its sign-in page. */
function refusal(c: InboxContext, problem: InboxProblem): Response {
  const title =
    problem.code === "stale_state" ? "This request changed" : problem.status === 403 ? "Refused" : "Not done";
  return c.html(
    messagePage({
      title,
      code: problem.code,
      message: problem.message,
      back: { href: "/signin", label: "Sign in to the inbox" },
    }).toString(),
    problem.status,
  );
}

/** Anything a link's route threw, answered as the inbox answers it, logged (when it is the inbox's fault) without the token. */
function failure(c: InboxContext, error: unknown): Response {
  const problem = inboxProblem(error);
  if (problem.status === 500 || problem.status === 503) {
    process.stderr.write(
      `${escapeText(maskPasswords(`leash serve: ${c.req.method} ${loggedPath(c.req.path)} failed: ${(error as Error).stack ?? String(error)}`))}\n`,
    );
    // Someone holding a link learns only that the store is out of reach, never where it is or why.
    if (problem.status === 503)
      return refusal(c, { status: 503, code: "store_unavailable", message: "The inbox cannot reach its store." });
  }
  return refusal(c, problem);
}

/** The run and the request the link answers, while the run still waits on it; else `stale_state`. */
function requestOf(state: RunState | null, link: LinkInfo): { state: RunState; waiting: WaitingRequest } {
  const waiting =
    state === null ? undefined : waitingRequests(state).find((item) => item.request.digest === link.digest);
  if (state === null || waiting === undefined)
    throw new LeashError(
      "stale_state",
      `Run ${link.runId} no longer waits on the request this link answers (it changed, was answered, or the run moved on); nothing was recorded.`,
    );
  return { state, waiting };
}

/** Refuses a person the registry no longer lets answer this request (`role_refused`). */
async function checkRoles(parts: InboxParts, link: LinkInfo, waiting: WaitingRequest): Promise<Role[]> {
  const roles = await parts.registry.rolesOf(link.name);
  if (roles === undefined || !rolesAllowAnswer(roles, waiting.request))
    throw new LeashError(
      "role_refused",
      `${link.name} may not answer this request: their roles in leash approvers do not allow it. Nothing was recorded.`,
    );
  return roles;
}

/** What a link's form may carry that counts: the decision, a note, and a limit request's raise. */
interface LinkForm {
  decision: "approve" | "deny";
  note?: string;
  raiseTo?: string;
}

/** The form's fields, checked before the link is spent (`invalid_option`, `not_json`); any other field is ignored. */
function readForm(form: Record<string, unknown>, waiting: WaitingRequest): LinkForm {
  // A field given twice is ambiguous (which decision did the person mean?): refused, not guessed.
  for (const field of ["decision", "note", "raise_to"])
    if (Array.isArray(form[field]))
      throw new LeashError(
        "invalid_option",
        `Expected one ${field}, but the form gives several. Nothing was recorded.`,
      );
  const { decision, note } = form;
  if (decision !== "approve" && decision !== "deny")
    throw new LeashError("invalid_option", 'Expected decision to be "approve" or "deny". Nothing was recorded.');
  if (note !== undefined && typeof note !== "string")
    throw new LeashError("invalid_option", "Expected note to be text. Nothing was recorded.");
  if (typeof note === "string" && !note.isWellFormed())
    throw new LeashError("not_json", "Expected note to be text without a lone surrogate. Nothing was recorded.");
  if (typeof note === "string" && note.length > MAX_NOTE_LENGTH)
    throw new LeashError("invalid_option", `Expected note to be at most ${MAX_NOTE_LENGTH} characters.`);
  const raise = typeof form.raise_to === "string" ? form.raise_to.trim() : "";
  if (
    waiting.request.kind === "limit" &&
    decision === "approve" &&
    !Number.isFinite(Number(raise === "" ? NaN : raise))
  )
    throw new LeashError(
      "invalid_option",
      "Expected raise_to to be a number: approving a raise says to what the limit goes. Nothing was recorded.",
    );
  // The raise is checked as the store will check it, before the link is spent: a link is spent only
  // by a POST that passes validation.
  if (waiting.request.kind === "limit" && decision === "approve") {
    const problem = raiseProblem(waiting.request, { granted: true, raiseTo: Number(raise) });
    if (problem !== undefined) throw new LeashError("invalid_answer", `${problem} Nothing was recorded.`);
  }
  return {
    decision,
    ...(typeof note === "string" ? { note } : {}),
    ...(waiting.request.kind === "limit" && raise !== "" ? { raiseTo: raise } : {}),
  };
}

/**
 * The routes of one-time approval links, reached without a sign-in: `GET /link/TOKEN` shows the
 * request the link answers and changes nothing; `POST /link/TOKEN` (its form, past the inbox's
 * cross-site checks of every POST) spends the link, by a compare-and-set, and then answers once as
 * the link's person, bound to the link's digest.
 */
export function addLinkRoutes(app: Hono<InboxEnv>, parts: InboxParts, now: () => Date = () => new Date()): void {
  app.get("/link/:token", async (c) => {
    try {
      const token = c.req.param("token");
      const link = await parts.links?.find(token);
      const gone = goneReason(link, now());
      if (gone !== undefined || link === undefined) return c.html(linkGonePage(gone ?? "").toString(), 410);
      const { state, waiting } = requestOf(await parts.store.load(link.runId), link);
      await checkRoles(parts, link, waiting);
      return c.html(linkPage(state, waiting, link, token).toString());
    } catch (error) {
      return failure(c, error);
    }
  });

  app.post("/link/:token", async (c) => {
    try {
      const token = c.req.param("token");
      const link = await parts.links?.find(token);
      const gone = goneReason(link, now());
      if (gone !== undefined || link === undefined) return c.html(linkGonePage(gone ?? "").toString(), 410);
      const { waiting } = requestOf(await parts.store.load(link.runId), link);
      const form = readForm(await c.req.parseBody({ all: true }), waiting);
      const roles = await checkRoles(parts, link, waiting);
      // Spent before the answer is recorded: of two posts at once, only one gets past this line. An
      // answer then refused (the request changed meanwhile) leaves the link spent.
      const spent = await parts.links?.spend(token, now());
      if (spent === undefined)
        return c.html(linkGonePage("This link was used or expired just now: a link answers once.").toString(), 410);
      const origin: AnswerOrigin = { via: "link", user: spent.name, host: c.get("address"), link: spent.id };
      const answered = await answerFromInbox(
        parts,
        spent.runId,
        spent.name,
        {
          digest: spent.digest,
          decision: form.decision,
          ...(form.note === undefined ? {} : { note: form.note }),
          ...(form.raiseTo === undefined ? {} : { raiseTo: form.raiseTo }),
        },
        c.get("address"),
        roles,
        origin,
      );
      return c.html(
        linkAnsweredPage({
          state: answered.state,
          link: spent,
          granted: form.decision === "approve",
          recorded: answered.recorded,
          ...(answered.notice === undefined ? {} : { notice: answered.notice }),
        }).toString(),
      );
    } catch (error) {
      return failure(c, error);
    }
  });
}
