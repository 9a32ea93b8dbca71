import { LeashError } from "../errors/leash-error.js";
import type { ApprovalRequest } from "../approvals/approval.js";
import { checkOptionKeys } from "../errors/check-option-keys.js";

/**
 * What a person of the approver registry may do in the inbox: `approver` answers call requests (the
 * role of a person added without one), `viewer` sees runs and trails and answers nothing, `spender`
 * answers limit requests and sets budgets. A person may hold several.
 */
export const ROLES = ["approver", "viewer", "spender"] as const;

/** One of {@link ROLES}. */
export type Role = (typeof ROLES)[number];

/** The roles of a person added without any, and of every person of a registry kept before roles. */
export const DEFAULT_ROLES: readonly Role[] = ["approver"];

/**
 * Checks a list of roles: a non-empty array of {@link ROLES}, else `invalid_option` naming the known
 * ones. Returned without repeats, in the order of {@link ROLES}, so that the same roles are always
 * written and shown the same way.
 */
export function checkRoles(roles: unknown): Role[] {
  if (!Array.isArray(roles))
    throw new LeashError("invalid_option", `Expected roles to be a list of roles; known: ${ROLES.join(", ")}.`);
  if (roles.length === 0)
    throw new LeashError(
      "invalid_option",
      `Expected at least one role (a person without one could do nothing); known: ${ROLES.join(", ")}.`,
    );
  for (const role of roles as unknown[]) {
    if (typeof role !== "string" || !(ROLES as readonly string[]).includes(role)) {
      const shown = typeof role === "string" ? JSON.stringify(role.slice(0, 64)) : typeof role;
      throw new LeashError("invalid_option", `Unknown role ${shown}; known: ${ROLES.join(", ")}.`);
    }
  }
  return ROLES.filter((role) => (roles as string[]).includes(role));
}

/**
 * The roles as a registry keeps them (`approver,spender`), read back: a person kept before roles
 * existed (no value) is an approver. A name this copy does not know is left out rather than trusted.
 */
export function storedRoles(text: unknown): Role[] {
  if (typeof text !== "string" || text === "") return [...DEFAULT_ROLES];
  const names = text.split(",");
  return ROLES.filter((role) => names.includes(role));
}

/** The roles in the form a registry keeps them and an answer's origin carries them: joined with ",". */
export function rolesText(roles: readonly Role[]): string {
  return roles.join(",");
}

/** The role that answers a request of this kind: `spender` for a limit request, `approver` for a call's. */
export function roleToAnswer(request: Pick<ApprovalRequest, "kind">): Role {
  return request.kind === "limit" ? "spender" : "approver";
}

/** Whether a person with these roles may answer this request (`policy.mayApprove` still decides after). */
export function rolesAllowAnswer(roles: readonly Role[], request: Pick<ApprovalRequest, "kind">): boolean {
  return roles.includes(roleToAnswer(request));
}

/** Whether these roles may answer some request (an approver's or a spender's); a viewer's alone may not. */
export function mayAnswerAny(roles: readonly Role[]): boolean {
  return roles.includes("approver") || roles.includes("spender");
}

/** The refusal of something a person's roles do not allow: nothing was recorded. */
export function roleRefused(name: string, roles: readonly Role[], doing: string, needs: Role): LeashError {
  return new LeashError(
    "role_refused",
    `${name} may not ${doing}: it takes the role ${needs}, and their roles are ${roles.join(", ")}. Nothing was recorded.`,
    { details: { roles: [...roles], needs } },
  );
}

/** The roles `registry.add(name, options)` gives: `options.roles` checked, else {@link DEFAULT_ROLES}. */
export function rolesToAdd(options: unknown): Role[] {
  checkOptionKeys(options, ["roles"], "registry.add(name, options)");
  const roles = (options as { roles?: unknown } | undefined)?.roles;
  return roles === undefined ? [...DEFAULT_ROLES] : checkRoles(roles);
}
