import { randomBytes, timingSafeEqual } from "node:crypto";

/** How long a session lasts without a request: 12 hours. */
const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;

/** What a run's page says once after this session answered it: the answer, whether it was recorded, and why not or what stands. */
export interface AnswerNotice {
  granted: boolean;
  recorded: boolean;
  /** A sentence from the inbox: the answer was given already, or a denial already stands. */
  text?: string;
}

/** A signed-in approver's session, kept in the server's memory only. */
export interface Session {
  /** The cookie's value: 32 random bytes, base64url. */
  id: string;
  /** The approver's name, as the registry knows it. */
  name: string;
  /**
   * The token the approver signed in with, kept only in memory, so that each request can be checked
   * against the registry again: an approver removed (or whose token is replaced) is signed out at once.
   */
  token: string;
  /** The synchronizer token every POST of this session carries (`_csrf` or `X-CSRF-Token`). */
  csrf: string;
  /** When the session was last used (ms since the epoch). */
  lastSeen: number;
  /**
   * The `User-Agent` the approver signed in with: a request of the session from another one is not
   * signed in (a cookie replayed by another program must at least copy it).
   */
  userAgent: string;
  /** A notice shown once, on the next view of that run's page: the answer this session just recorded. */
  flash?: { runId: string; notice: AnswerNotice };
}

function randomId(): string {
  return randomBytes(32).toString("base64url");
}

/** Whether two strings are equal, compared in constant time (a CSRF token, say). */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The sessions of the inbox, in memory: a restart signs everyone out, which is what a small local
 * server should do. Sessions idle for {@link SESSION_IDLE_MS} expire.
 */
export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #now: () => number;
  readonly #idleMs: number;

  constructor(options: { now?: () => number; idleMs?: number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#idleMs = options.idleMs ?? SESSION_IDLE_MS;
  }

  /** Starts a session for an approver who just proved their token. */
  create(name: string, token: string, userAgent = ""): Session {
    this.#sweep();
    const session: Session = { id: randomId(), name, token, csrf: randomId(), lastSeen: this.#now(), userAgent };
    this.#sessions.set(session.id, session);
    return session;
  }

  /**
   * The live session of a cookie's value, its idle clock reset; undefined when none, expired, or sent
   * by another `User-Agent` than the one that signed in (that session is left alone).
   */
  touch(id: string, userAgent = ""): Session | undefined {
    const session = this.#sessions.get(id);
    if (session === undefined || !sameSecret(userAgent, session.userAgent)) return undefined;
    const now = this.#now();
    if (now - session.lastSeen > this.#idleMs) {
      this.#sessions.delete(id);
      return undefined;
    }
    session.lastSeen = now;
    return session;
  }

  /** A session still there (an event stream asks before each event), without resetting its idle clock. */
  get(id: string): Session | undefined {
    const session = this.#sessions.get(id);
    return session !== undefined && this.#now() - session.lastSeen <= this.#idleMs ? session : undefined;
  }

  /** Gives a session a new CSRF token (after each answer), so a token read from an old page is spent. */
  rotateCsrf(session: Session): string {
    session.csrf = randomId();
    return session.csrf;
  }

  /** Ends a session (sign-out, or an approver no longer in the registry). */
  end(id: string): void {
    this.#sessions.delete(id);
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, session] of this.#sessions) if (now - session.lastSeen > this.#idleMs) this.#sessions.delete(id);
  }
}
