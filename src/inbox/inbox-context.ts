import type { Context } from "hono";
import type { StoreLocation } from "../operate/store-location.js";
import type { CliStore } from "../operate/open-store.js";
import type { ApproverCheck } from "./answer-from-inbox.js";
import type { ApproverRegistry } from "./approver-registry.js";
import type { Role } from "./approver-roles.js";
import type { EventStreams } from "./event-streams.js";
import type { InboxProblem } from "./inbox-problem.js";
import type { KeyedQueue } from "./keyed-queue.js";
import type { LinkStore } from "./link-store.js";
import { messagePage } from "./pages/message-page.js";
import type { Viewer } from "./pages/layout.js";
import type { Session, SessionStore } from "./session-store.js";
import type { SignInThrottle } from "./sign-in-throttle.js";

/** What the inbox's routes work with: the store, the approvers, the sessions and the event streams. */
export interface InboxParts {
  store: CliStore;
  location: StoreLocation;
  registry: ApproverRegistry;
  /** The one-time approval links (`leash link`); without them, every link is unknown. */
  links?: LinkStore;
  /** The app's policy, when `leash serve --agent` loaded it. */
  policy?: ApproverCheck;
  sessions: SessionStore;
  /** Where the answers to one run wait their turn (see `answerFromInbox`). */
  answerQueue: KeyedQueue;
  throttle: SignInThrottle;
  streams: EventStreams;
  /** The `Host` headers answered (`host:port`, lowercase); null for any. */
  hosts: ReadonlySet<string> | null;
  /** Origins a POST may come from beside the listening address's own: the public address (`--base`), if given. */
  origins?: ReadonlySet<string>;
}

/** The values a request carries through the inbox's middleware. */
export interface InboxEnv {
  Variables: {
    /** The signed-in approver's name. */
    approver: string;
    /** Their roles, read from the registry with their token on this request. */
    roles: Role[];
    /** The cookie session, when the request came with one (not with a Bearer token). */
    session: Session | undefined;
    /** The client's address. */
    address: string;
  };
}

/** A request's context in the inbox. */
export type InboxContext = Context<InboxEnv>;

/** Whether a path is one of the JSON routes for scripts. */
export function isApiPath(path: string): boolean {
  return path === "/api" || path.startsWith("/api/");
}

/** Who looks at a page: the approver, their roles, and the session's CSRF token for its forms. */
export function viewerOf(c: InboxContext): Viewer {
  const session = c.get("session");
  return {
    name: c.get("approver"),
    roles: c.get("roles"),
    ...(session === undefined ? {} : { csrf: session.csrf }),
  };
}

/** A refusal or an error, as JSON `{ error: { code, message } }` on an API route, else as a page with `[role=alert]`. */
export function problemResponse(c: InboxContext, problem: InboxProblem): Response {
  if (isApiPath(c.req.path)) return c.json({ error: { code: problem.code, message: problem.message } }, problem.status);
  const approver = c.get("approver") as string | undefined;
  const viewer = approver === undefined ? undefined : viewerOf(c);
  const title =
    problem.code === "stale_state"
      ? "This request changed"
      : problem.status === 404
        ? "Not found"
        : problem.status === 403
          ? "Refused"
          : "Something went wrong";
  return c.html(
    messagePage({
      title,
      code: problem.code,
      message: problem.message,
      ...(viewer === undefined ? {} : { viewer }),
    }).toString(),
    problem.status,
  );
}
