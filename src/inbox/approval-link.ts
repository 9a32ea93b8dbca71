import { LeashError } from "../errors/leash-error.js";
import type { ApprovalRequest } from "../approvals/approval.js";
import type { RunStore } from "../stores/run-store.js";
import { findRun } from "../operate/find-run.js";
import type { StoreLocation } from "../operate/store-location.js";
import { selectRequest } from "../operate/waiting-requests.js";
import type { RequestSelector } from "../operate/waiting-requests.js";
import type { ApproverRegistry } from "./approver-registry.js";
import { notAPerson } from "./link-store.js";
import type { LinkInfo, LinkStore } from "./link-store.js";
import { rolesAllowAnswer } from "./approver-roles.js";

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** How long a link works by default: an hour. */
export const DEFAULT_LINK_FOR = "1h";

/** The longest a link works: a week. A link is a credential in a mailbox; it should not outlive the question. */
const MAX_LINK_MS = 7 * UNIT_MS.d;

/** Where the inbox is by default: `leash serve`'s own address. */
export const DEFAULT_LINK_BASE = "http://127.0.0.1:7777";

/** How long a link works, from `--for`: `30m`, `2h`, `7d` (whole minutes, hours or days, at most 7 days), else `invalid_option`. */
export function linkLifetimeMs(duration: string): number {
  const match = /^([1-9]\d{0,5})([mhd])$/.exec(duration.trim());
  const ms = match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (!Number.isFinite(ms) || ms > MAX_LINK_MS)
    throw new LeashError(
      "invalid_option",
      "Expected `--for` to be a whole number of minutes, hours or days, e.g. 30m, 2h or 7d (at most 7 days).",
    );
  return ms;
}

/** The inbox's address from `--base`: an http(s) URL without query or fragment, its trailing slashes dropped; else `invalid_option`. */
export function linkBase(base: string): string {
  const trimmed = base.trim();
  const parsed = URL.canParse(trimmed) ? new URL(trimmed) : undefined;
  if (
    parsed === undefined ||
    (parsed.protocol !== "http:" && parsed.protocol !== "https:") ||
    parsed.search !== "" ||
    parsed.hash !== "" ||
    parsed.username !== "" ||
    parsed.password !== ""
  )
    throw new LeashError(
      "invalid_option",
      "Expected `--base` to be the inbox's address, an http or https URL such as http://127.0.0.1:7777 (no query, fragment or password).",
    );
  return trimmed.replace(/\/+$/, "");
}

/** What {@link makeApprovalLink} needs: the run's store, the registry, the links, and what to make. */
export interface ApprovalLinkInput {
  store: RunStore;
  location: StoreLocation;
  registry: ApproverRegistry;
  links: LinkStore;
  runId: string;
  /** The person of the registry the link answers as. */
  name: string;
  /** How long it works (`--for`): default {@link DEFAULT_LINK_FOR}. */
  duration?: string;
  /** The inbox's address (`--base`): default {@link DEFAULT_LINK_BASE}. */
  base?: string;
  /** Which waiting request, when a gate's session has several (`--step`, `--call`). */
  select?: RequestSelector;
  /** The clock; `new Date()` by default. */
  now?: Date;
}

/** A link made: its URL (holding the token, shown once), when it expires, and what it answers. */
export interface ApprovalLink {
  url: string;
  expiresAt: string;
  link: LinkInfo;
  request: ApprovalRequest;
}

/**
 * Makes a one-time link that answers the request a run waits on as a person of the registry, without
 * a sign-in: `--for` and `--base` checked first (`invalid_option`), then the run (`run_not_found`),
 * the request (`stale_state` when none waits, `invalid_option` when several wait and none is picked),
 * and the person, whose roles must let them answer it (`role_refused`). Only the token's hash is kept.
 */
export async function makeApprovalLink(input: ApprovalLinkInput): Promise<ApprovalLink> {
  const lifetime = linkLifetimeMs(input.duration ?? DEFAULT_LINK_FOR);
  const base = linkBase(input.base ?? DEFAULT_LINK_BASE);
  const now = input.now ?? new Date();
  const state = await findRun(input.store, input.runId, input.location);
  const { request } = selectRequest(state, input.select);
  const roles = await input.registry.rolesOf(input.name);
  if (roles === undefined) throw notAPerson(input.name);
  if (!rolesAllowAnswer(roles, request))
    throw new LeashError(
      "role_refused",
      `${input.name} may not answer this request: their roles (${roles.join(", ") || "none"}) do not allow a ${request.kind} request.`,
    );
  const expiresAt = new Date(now.getTime() + lifetime).toISOString();
  const { token, link } = await input.links.create({
    name: input.name,
    runId: state.runId,
    digest: request.digest,
    step: request.step,
    expiresAt,
  });
  return { url: `${base}/link/${token}`, expiresAt, link, request };
}
