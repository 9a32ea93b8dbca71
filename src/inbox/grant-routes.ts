import type { Hono } from "hono";
import { LeashError } from "../errors/leash-error.js";
import type { CallApprovalRequest } from "../approvals/approval.js";
import type { GrantInfo } from "../stores/grant-info.js";
import type { RunStore } from "../stores/run-store.js";
import { activeFirst, expiryAfter } from "../operate/grant-expiry.js";
import { waitingRequests } from "../operate/waiting-requests.js";
import { roleRefused, rolesText } from "./approver-roles.js";
import type { Role } from "./approver-roles.js";
import { inboxProblem } from "./inbox-problem.js";
import { viewerOf } from "./inbox-context.js";
import type { InboxContext, InboxEnv, InboxParts } from "./inbox-context.js";
import { grantsPage } from "./pages/grants-page.js";
import { messagePage } from "./pages/message-page.js";

/** The most calls "approve, and allow N more" gives at once from the inbox. */
const MAX_MORE_USES = 1000;

/** The durations the run page offers for "allow N more for T". */
export const ALLOW_FOR = ["30m", "2h", "1d", "7d"] as const;

type GrantStore = RunStore & Required<Pick<RunStore, "grant" | "revokeGrant" | "grants">>;

function grantStore(parts: InboxParts): GrantStore {
  const { store } = parts;
  if (store.grant === undefined || store.revokeGrant === undefined || store.grants === undefined)
    throw new LeashError("invalid_option", "This store keeps no standing grants.");
  return store as GrantStore;
}

/** "Allow N more like this for T", as the run page's form gave it, checked before anything is recorded. */
export interface AllowMore {
  uses: number;
  expiresAt: string;
}

/** Checks the form's `more_uses` and `more_for`: refused with `invalid_option` naming the field. */
export function allowMoreOf(form: Record<string, unknown>, now: Date): AllowMore {
  const text = typeof form.more_uses === "string" ? form.more_uses.trim() : "";
  const uses = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(uses) || uses < 1 || uses > MAX_MORE_USES)
    throw new LeashError(
      "invalid_option",
      `Expected more_uses to be a whole number of calls from 1 to ${MAX_MORE_USES}.`,
    );
  const duration = typeof form.more_for === "string" ? form.more_for : "";
  if (!(ALLOW_FOR as readonly string[]).includes(duration))
    throw new LeashError("invalid_option", `Expected more_for to be one of ${ALLOW_FOR.join(", ")}.`);
  return { uses, expiresAt: expiryAfter(duration, now, "more_for") };
}

/** The request of a run with this digest (its pending one, or one of a gate session's waiting), or `stale_state`. */
export async function requestWithDigest(
  parts: InboxParts,
  runId: string,
  digest: unknown,
): Promise<CallApprovalRequest> {
  const state = await parts.store.load(runId);
  const found = state === null ? undefined : waitingRequests(state).find((item) => item.request.digest === digest);
  if (found === undefined)
    throw new LeashError("stale_state", "The request this page showed is no longer waiting: nothing was recorded.");
  // More calls like this one are a call's to allow: a limit request is raised, not granted ahead.
  if (found.request.kind !== "call")
    throw new LeashError("invalid_option", "Only a call's request can allow more calls like it: nothing was recorded.");
  return found.request;
}

/**
 * Gives the grant of "approve, and allow N more calls of this tool with exactly these arguments
 * for T": the request's tool, its arguments as a `const` schema (nothing else matches), given by the
 * signed-in approver with the inbox's origin (their roles in it, as an answer's).
 */
export function grantLikeThis(
  parts: InboxParts,
  request: CallApprovalRequest,
  approver: string,
  more: AllowMore,
  host: string,
  roles: readonly Role[],
): Promise<GrantInfo> {
  return grantStore(parts).grant(
    {
      tool: request.tool,
      args: { const: request.args },
      maxUses: more.uses,
      expiresAt: more.expiresAt,
      by: approver,
      note: `allowed from the inbox while approving step ${request.step} of run ${request.runId}`,
    },
    { origin: { via: "leash-serve", user: approver, host, roles: rolesText(roles) } },
  );
}

function refused(c: InboxContext, error: unknown): Response {
  const problem = inboxProblem(error);
  if (problem.status === 500) throw error;
  return c.html(
    messagePage({
      title: problem.status === 404 ? "Not found" : "Refused",
      code: problem.code,
      message: problem.message,
      viewer: viewerOf(c),
      back: { href: "/grants", label: "Back to the grants" },
    }).toString(),
    problem.status,
  );
}

/** The grants page and its revoke button: revoked under the signed-in name only, by the role approver. */
export function addGrantRoutes(app: Hono<InboxEnv>, parts: InboxParts): void {
  app.get("/grants", async (c) => {
    const now = new Date();
    const grants = activeFirst(await grantStore(parts).grants(), now);
    return c.html(grantsPage(grants, viewerOf(c), now).toString());
  });

  app.post("/grants/:id/revoke", async (c) => {
    try {
      // Standing grants are the role approver's to give and to revoke.
      if (!c.get("roles").includes("approver"))
        throw roleRefused(c.get("approver"), c.get("roles"), "revoke a standing grant", "approver");
      await grantStore(parts).revokeGrant(c.req.param("id"), { by: c.get("approver") });
    } catch (error) {
      return refused(c, error);
    }
    const session = c.get("session");
    if (session !== undefined) parts.sessions.rotateCsrf(session);
    return c.redirect("/grants", 303);
  });
}
