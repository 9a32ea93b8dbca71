import { LeashError, checkOptionKeys, messageOf } from "../errors/index.js";
import type { Effect } from "../tools/tool.js";
import { EFFECTS } from "../tools/tool.js";
import type { ApprovalRequest, CallApprovalRequest } from "../approvals/approval.js";
import type { AnswerOrigin } from "../approvals/answer-origin.js";

/** Options of {@link Policy}; every one defaults to least privilege. */
export interface PolicyOptions {
  /** Scopes granted to the agent; a tool runs only when all of its scopes are granted. Default `[]`. */
  grantedScopes?: string[];
  /** Effects the agent may use at all. Default `["read"]`. */
  allowEffects?: Effect[];
  /** Allowed effects that need a person's approval per call. Default `["write", "external"]`. */
  approvalFor?: Effect[];
  /**
   * Who may answer an approval request. Default: anyone. `origin` is where a recorded answer came from
   * (`{ via: "cli", user, host }`, `{ via: "mcp_elicitation", client, host }`...), so an app can refuse
   * answers from a channel it does not trust; it is `undefined` for an answer given in process.
   */
  mayApprove?: (approver: string, request: ApprovalRequest, origin?: AnswerOrigin) => boolean;
  /**
   * How many distinct allowed approvers must grant a call, asked once when its request is made
   * (default 1): an integer from 1 to {@link MAX_QUORUM}. Any other result, or a throw, fails the run
   * (`policy_failed`).
   */
  quorum?: (request: CallApprovalRequest) => number;
}

/** The largest quorum a policy may ask for. */
export const MAX_QUORUM = 100;

/** What a policy's quorum says of a request: how many grants it needs, or why the policy failed. */
export type QuorumVerdict = { type: "quorum"; quorum: number | undefined } | { type: "failed"; message: string };

const POLICY_OPTIONS = ["grantedScopes", "allowEffects", "approvalFor", "mayApprove", "quorum"] as const;

function effects(value: unknown, option: string, fallback: Effect[]): ReadonlySet<Effect> {
  if (value === undefined) return new Set(fallback);
  if (!Array.isArray(value) || !value.every((item) => EFFECTS.includes(item as Effect))) {
    throw new LeashError("invalid_option", `Expected \`${option}\` to be an array of "read", "write" and "external".`);
  }
  return new Set(value as Effect[]);
}

/**
 * What an agent may do: which effects, which scopes, which calls need a person, and who may answer.
 * `new Policy()` is least privilege: read tools that need no scope, and nothing else.
 *
 * @example
 * new Policy({ grantedScopes: ["docs:read"], allowEffects: ["read", "write"] })
 */
export class Policy {
  readonly grantedScopes: ReadonlySet<string>;
  readonly allowEffects: ReadonlySet<Effect>;
  readonly approvalFor: ReadonlySet<Effect>;
  readonly #mayApprove: ((approver: string, request: ApprovalRequest, origin?: AnswerOrigin) => boolean) | undefined;
  readonly #quorum: ((request: CallApprovalRequest) => number) | undefined;

  constructor(options: PolicyOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw new LeashError("invalid_option", "Expected the policy options to be an object.");
    }
    // A misspelt option (`grantScopes`, `allowEffect`) would silently leave its default in place.
    checkOptionKeys(options, POLICY_OPTIONS, "new Policy(options)");
    const scopes = options.grantedScopes ?? [];
    if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === "string")) {
      throw new LeashError("invalid_option", "Expected `grantedScopes` to be an array of strings.");
    }
    if (options.mayApprove !== undefined && typeof options.mayApprove !== "function") {
      throw new LeashError("invalid_option", "Expected `mayApprove` to be a function.");
    }
    if (options.quorum !== undefined && typeof options.quorum !== "function") {
      throw new LeashError("invalid_option", "Expected `quorum` to be a function.");
    }
    this.grantedScopes = new Set(scopes);
    this.allowEffects = effects(options.allowEffects, "allowEffects", ["read"]);
    this.approvalFor = effects(options.approvalFor, "approvalFor", ["write", "external"]);
    this.#mayApprove = options.mayApprove;
    this.#quorum = options.quorum;
  }

  /**
   * How many distinct allowed approvers this request needs: `undefined` when the policy has no
   * quorum (one approver, as always), else the callable's answer, or why it is not one.
   */
  quorumOf(request: CallApprovalRequest): QuorumVerdict {
    if (this.#quorum === undefined) return { type: "quorum", quorum: undefined };
    let value: unknown;
    try {
      value = this.#quorum(structuredClone(request));
    } catch (error) {
      return { type: "failed", message: `The policy's quorum threw: ${messageOf(error)}` };
    }
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_QUORUM) {
      const shown = typeof value === "number" ? String(value) : typeof value;
      return {
        type: "failed",
        message: `The policy's quorum returned ${shown}; expected an integer from 1 to ${MAX_QUORUM}.`,
      };
    }
    return { type: "quorum", quorum: value };
  }

  /** Whether tools of this effect may run at all. */
  allowsEffect(effect: Effect): boolean {
    return this.allowEffects.has(effect);
  }

  /** The scopes of a tool that this policy does not grant (empty when all are granted). */
  missingScopes(scopes: readonly string[]): string[] {
    return scopes.filter((scope) => !this.grantedScopes.has(scope));
  }

  /** Whether a call of this effect needs a person's approval. */
  needsApproval(effect: Effect): boolean {
    return this.approvalFor.has(effect);
  }

  /**
   * Whether this approver may answer this request, telling a refusal from a check that threw: a
   * resume decides nothing when the check of any of its answers threw (see `approver_check_failed`).
   */
  checkApprover(approver: string, request: ApprovalRequest, origin?: AnswerOrigin): "allowed" | "refused" | "threw" {
    if (this.#mayApprove === undefined) return "allowed";
    try {
      return this.#mayApprove(approver, request, copyOrigin(origin)) === true ? "allowed" : "refused";
    } catch {
      return "threw";
    }
  }

  /**
   * Whether this approver may answer this request, given through `origin` (absent: in process). A
   * throwing callable counts as a refusal.
   */
  mayApprove(approver: string, request: ApprovalRequest, origin?: AnswerOrigin): boolean {
    if (this.#mayApprove === undefined) return true;
    try {
      return this.#mayApprove(approver, request, copyOrigin(origin)) === true;
    } catch {
      return false;
    }
  }
}

/** A copy of an origin for the app's callable: what it changes is not what the run records. */
function copyOrigin(origin: AnswerOrigin | undefined): AnswerOrigin | undefined {
  return origin === undefined ? undefined : { ...origin };
}
