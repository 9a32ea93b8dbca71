import { LeashError, checkOptionKeys } from "../errors/index.js";
import { snapshotFields } from "../decisions/decision.js";
import { copyJson, isDigest, isJsonObject, toJson } from "../json/index.js";
import type { Json } from "../json/index.js";
import type { RequestedLimit } from "../limits/limits.js";
import type { Effect } from "../tools/tool.js";

/** The fields of an approval's options. */
const ANSWER_FIELDS = ["granted", "approver", "note", "raiseTo", "args"] as const;

/** The longest `note` of an approval, in characters. */
const MAX_NOTE_LENGTH = 10_000;
/** What a paused run asks a person about a call: may this exact action run. */
export interface CallApprovalRequest {
  kind: "call";
  runId: string;
  /** The index of the step in `state.steps`. */
  step: number;
  tool: string;
  args: Json;
  effect: Effect;
  scopes: string[];
  reason?: string;
  /** SHA-256 over the canonical JSON of the exact action and of the run's history up to the request. */
  digest: string;
  /** ISO 8601 time of the request. */
  requestedAt: string;
  /** How many distinct allowed approvers must grant the call (`policy.quorum`); present when the policy has one. */
  quorum?: number;
  /** Under a quorum: the allowed approvers who granted so far, in order, as the last resume worked it out. */
  grantedBy?: string[];
}

/**
 * What a paused run asks a person about a limit named in `limits.askToRaise`: may the run go on past
 * it, and up to what (`Approval.raise`).
 */
export interface LimitApprovalRequest {
  kind: "limit";
  runId: string;
  /** The index of the step the limit stopped, or of the next decision for a limit met before the planner. */
  step: number;
  /** The limit by its stop reason: the run's own (`max_cost`...) or its shared budget's (`budget_cost`...). */
  limit: RequestedLimit;
  /** What was spent (or counted) so far. */
  used: number;
  /** The limit as it is. */
  allowed: number;
  /** SHA-256 over the canonical JSON of the limit, what was used, what is allowed, and the run's history. */
  digest: string;
  /** ISO 8601 time of the request. */
  requestedAt: string;
}

/** What a paused run asks a person: about a call (`kind: "call"`) or a limit (`kind: "limit"`). */
export type ApprovalRequest = CallApprovalRequest | LimitApprovalRequest;

/** The saved form of an {@link Approval}. */
export interface ApprovalJson {
  digest: string;
  granted: boolean;
  approver: string;
  note?: string;
  /** A raise of a limit request: the limit, for this run, from now on. */
  raiseTo?: number;
  /** An edit: the arguments the approver lets the call run with instead of the proposed ones. */
  args?: Json;
}

/** The options of `new Approval(digest, options)`. */
interface ApprovalOptions {
  granted: boolean;
  approver: string;
  note?: string;
  raiseTo?: number;
  args?: Json;
}

/**
 * A person's answer to an approval request, bound to the request's digest: it authorises that exact
 * action after that exact history, and nothing else.
 *
 * @example
 * await agent.resume(paused.runId, { approvals: [Approval.grant(paused.pending!.digest, "allen")] });
 */
export class Approval {
  readonly digest: string;
  readonly granted: boolean;
  readonly approver: string;
  readonly note: string | undefined;
  /** A raise of a limit request (`Approval.raise`): the limit, for this run, from now on. */
  readonly raiseTo: number | undefined;
  /** The edited arguments a grant lets the call run with, if the approver changed them. */
  readonly args: Json | undefined;

  constructor(digest: string, given: ApprovalOptions) {
    // Each option is read exactly once: a getter cannot answer one thing to the check and another to use.
    // A misspelt `note` (`notes`) would drop what the approver wrote.
    if (typeof given === "object" && given !== null) {
      checkOptionKeys(given, ANSWER_FIELDS, "new Approval(digest, options)");
    }
    const options =
      typeof given === "object" && given !== null
        ? (snapshotFields(given, ANSWER_FIELDS, (message) => {
            throw new LeashError("invalid_option", `Expected an approval's options to be readable, but ${message}.`);
          }) as unknown as ApprovalOptions)
        : given;
    if (!isDigest(digest)) {
      throw new LeashError("invalid_option", "Expected the approval's `digest` to be 64 lowercase hex digits.");
    }
    if (typeof options !== "object" || options === null || typeof options.granted !== "boolean") {
      throw new LeashError("invalid_option", "Expected `granted` to be a boolean.");
    }
    if (typeof options.approver !== "string" || options.approver.trim() === "") {
      throw new LeashError("invalid_option", "Expected `approver` to be a non-empty string.");
    }
    if (options.note !== undefined && typeof options.note !== "string") {
      throw new LeashError("invalid_option", "Expected `note` to be a string.");
    }
    // Text given as data goes into the trail as it is, so it must be well-formed: refused, not repaired.
    if (!options.approver.isWellFormed() || (options.note !== undefined && !options.note.isWellFormed())) {
      throw new LeashError(
        "not_json",
        "Expected the approval's `approver` and `note` to be well-formed text, but one holds a lone surrogate.",
      );
    }
    if (options.note !== undefined && options.note.length > MAX_NOTE_LENGTH) {
      throw new LeashError("not_json", `Expected the approval's \`note\` to be at most ${MAX_NOTE_LENGTH} characters.`);
    }
    // Whether the raise fits the limit is judged against the request at resume (`invalid_answer`);
    // here only its type: a raise is a grant, of a number.
    if (options.raiseTo !== undefined && typeof options.raiseTo !== "number") {
      throw new LeashError("invalid_option", "Expected `raiseTo` to be a number.");
    }
    if (options.raiseTo !== undefined && !options.granted) {
      throw new LeashError("invalid_option", "Expected `raiseTo` only on a grant: a denial raises nothing.");
    }
    this.digest = digest;
    this.granted = options.granted;
    this.approver = options.approver;
    this.note = options.note;
    this.raiseTo = options.raiseTo;
    this.args = editedArgs(options);
    // An answer is checked once and used as checked: nothing may change it afterwards.
    Object.freeze(this);
  }

  /** An approval of the request with this digest. */
  static grant(digest: string, approver: string, note?: string): Approval {
    return new Approval(digest, note === undefined ? { granted: true, approver } : { granted: true, approver, note });
  }

  /**
   * An approval of the request with this digest that lets the call run with `args` instead of the
   * proposed arguments: every gate runs again on the edited call before it runs.
   *
   * @example
   * Approval.edit(paused.pending!.digest, "noor", { amount: 40, memo: "INV-2041" }, "capped at 40");
   */
  static edit(digest: string, approver: string, args: Json, note?: string): Approval {
    return new Approval(digest, { granted: true, approver, args, ...(note === undefined ? {} : { note }) });
  }

  /** A refusal of the request with this digest. */
  static deny(digest: string, approver: string, note?: string): Approval {
    return new Approval(digest, note === undefined ? { granted: false, approver } : { granted: false, approver, note });
  }

  /**
   * A grant of a limit request that raises the limit to `to` for this run. At resume `to` must be a
   * finite number above what was used (an integer for `max_tokens`, `max_tool_calls`, `max_steps`).
   *
   * @example
   * await agent.resume(paused.runId, { approvals: [Approval.raise(paused.pending!.digest, "noor", 0.2)] });
   */
  static raise(digest: string, approver: string, to: number, note?: string): Approval {
    return new Approval(
      digest,
      note === undefined ? { granted: true, approver, raiseTo: to } : { granted: true, approver, note, raiseTo: to },
    );
  }

  /**
   * Rebuilds an approval from its saved form, or from any object with its fields (an `Approval` given
   * by an approver included): each field is read exactly once, then checked; never cast.
   */
  static fromJSON(value: unknown): Approval {
    if (typeof value !== "object" || value === null) {
      throw new LeashError("invalid_option", "Expected an approval object.");
    }
    const raw = snapshotFields(value, ["digest", ...ANSWER_FIELDS], (message) => {
      throw new LeashError("invalid_option", `Expected an approval object that can be read, but ${message}.`);
    });
    return new Approval(raw.digest as string, {
      granted: raw.granted as boolean,
      approver: raw.approver as string,
      ...(raw.note === undefined ? {} : { note: raw.note as string }),
      ...(raw.raiseTo === undefined ? {} : { raiseTo: raw.raiseTo as number }),
      ...(raw.args === undefined ? {} : { args: raw.args as Json }),
    });
  }

  toJSON(): ApprovalJson {
    const json: ApprovalJson = { digest: this.digest, granted: this.granted, approver: this.approver };
    if (this.note !== undefined) json.note = this.note;
    if (this.raiseTo !== undefined) json.raiseTo = this.raiseTo;
    if (this.args !== undefined) json.args = copyJson(this.args);
    return json;
  }
}

/**
 * The edited arguments of an approval's options, checked and copied: a JSON object, given only
 * with a grant (a refusal runs nothing, so it edits nothing).
 */
function editedArgs(options: ApprovalOptions): Json | undefined {
  if (options.args === undefined) return undefined;
  if (!options.granted) {
    throw new LeashError(
      "invalid_option",
      "Expected `args` only on a grant: a refusal runs nothing, so it edits nothing.",
    );
  }
  if (options.raiseTo !== undefined) {
    throw new LeashError(
      "invalid_option",
      "Expected either `args` (an edit of a call) or `raiseTo` (a raise of a limit), not both.",
    );
  }
  const args = toJson(options.args, "the approval's `args`");
  if (!isJsonObject(args))
    throw new LeashError("invalid_option", "Expected the approval's `args` to be a JSON object.");
  return Object.freeze(args);
}

/**
 * Whatever answers call requests at once: an automated policy, or a prompt to a person. A limit
 * request (`limits.askToRaise`) is never put to it: the run pauses for a person.
 */
export type Approver = (
  request: CallApprovalRequest,
) => Approval | null | undefined | Promise<Approval | null | undefined>;
