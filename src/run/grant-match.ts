import type { CallApprovalRequest } from "../approvals/approval.js";
import type { Json } from "../json/index.js";
import { digestOfJson } from "../json/index.js";
import type { GrantInfo } from "../stores/grant-info.js";
import { compileGrantSchema } from "../stores/grant-schema.js";
import type { Tool } from "../tools/tool.js";

/**
 * The digest of a tool's declaration as a standing grant is bound to it: name, effect, scopes and,
 * for a tool from an MCP server, its definition as listed. `store.grant` is given only a tool's name
 * (a store holds no tools), so a grant is pinned to this digest at its first use, in the same
 * compare-and-set that takes the use: a later call through another declaration (an MCP server that
 * redefined the tool, an app that gave it another effect or scope) matches no grant. Canonical JSON
 * behind a versioned tag, never fields joined by a delimiter.
 */
export function grantToolDigest(tool: Tool): string {
  return digestOfJson([
    "leash.grant-tool/1",
    tool.name,
    tool.effect,
    [...tool.scopes],
    (tool.definition ?? null) as unknown as Json,
  ]);
}

/** What a call offers a standing grant to match. */
export interface GrantCall {
  /** The request as a person would be asked it. */
  request: CallApprovalRequest;
  /** The run's principal, if it has one. */
  principal: string | undefined;
  /** The agent's name. */
  agent: string;
  /** The time by the agent's clock. */
  now: Date;
  /** Whether the policy lets this grant's giver approve this request, given through this use. */
  mayApprove: (grant: GrantInfo, use: number) => boolean;
  /** Grants already found bound to another declaration of the tool. */
  excluded?: ReadonlySet<string>;
}

/** Whether the call's arguments satisfy the grant's schema; a schema that does not compile matches nothing. */
function argumentsFit(grant: GrantInfo, args: Json): boolean {
  if (grant.args === undefined) return true;
  try {
    return compileGrantSchema(grant.args, "`args` of a standing grant").validate(args).valid;
  } catch {
    return false;
  }
}

/** Whether one grant may approve the call (every condition of API.md section 16 but the declaration's pin). */
function matches(grant: GrantInfo, call: GrantCall): boolean {
  const { request } = call;
  if (grant.revoked !== undefined || grant.uses >= grant.maxUses || grant.tool !== request.tool) return false;
  if (grant.expiresAt !== undefined && Date.parse(grant.expiresAt) <= call.now.getTime()) return false;
  if (call.excluded?.has(grant.id) === true) return false;
  if (grant.principal !== undefined && grant.principal !== call.principal) return false;
  if (grant.agent !== undefined && grant.agent !== call.agent) return false;
  if (!argumentsFit(grant, request.args)) return false;
  return call.mayApprove(grant, grant.uses + 1);
}

/**
 * The standing grants that approve a call, oldest first (the store's order), at most `needed` of
 * them and each of a distinct giver: the grants a quorum of `needed` approvers takes, one use each.
 * With `needed` 1, the oldest matching grant.
 */
export function matchGrants(grants: readonly GrantInfo[], call: GrantCall, needed: number): GrantInfo[] {
  const chosen: GrantInfo[] = [];
  const givers = new Set<string>();
  for (const grant of grants) {
    if (chosen.length >= needed) break;
    if (givers.has(grant.by) || !matches(grant, call)) continue;
    givers.add(grant.by);
    chosen.push(grant);
  }
  return chosen;
}
