import { LeashError, checkOptionKeys } from "../errors/index.js";
import { snapshotFields } from "../decisions/decision.js";
import { isDigest } from "../json/index.js";
import type { Json } from "../json/index.js";
import type { Effect } from "../tools/tool.js";

/** The longest `note` of an approval, in characters. */
const MAX_NOTE_LENGTH = 10_000;
/** What a paused run asks a person, and why. */
export interface ApprovalRequest {
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
}

/** The saved form of an {@link Approval}. */
export interface ApprovalJson {
  digest: string;
  granted: boolean;
  approver: string;
  note?: string;
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

  constructor(digest: string, given: { granted: boolean; approver: string; note?: string }) {
    // Each option is read exactly once: a getter cannot answer one thing to the check and another to use.
    // A misspelt `note` (`notes`) would drop what the approver wrote.
    if (typeof given === "object" && given !== null) {
      checkOptionKeys(given, ["granted", "approver", "note"], "new Approval(digest, options)");
    }
    const options =
      typeof given === "object" && given !== null
        ? (snapshotFields(given, ["granted", "approver", "note"], (message) => {
            throw new LeashError("invalid_option", `Expected an approval's options to be readable, but ${message}.`);
          }) as { granted: boolean; approver: string; note?: string })
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
    this.digest = digest;
    this.granted = options.granted;
    this.approver = options.approver;
    this.note = options.note;
    // An answer is checked once and used as checked: nothing may change it afterwards.
    Object.freeze(this);
  }

  /** An approval of the request with this digest. */
  static grant(digest: string, approver: string, note?: string): Approval {
    return new Approval(digest, note === undefined ? { granted: true, approver } : { granted: true, approver, note });
  }

  /** A refusal of the request with this digest. */
  static deny(digest: string, approver: string, note?: string): Approval {
    return new Approval(digest, note === undefined ? { granted: false, approver } : { granted: false, approver, note });
  }

  /**
   * Rebuilds an approval from its saved form, or from any object with its fields (an `Approval` given
   * by an approver included): each field is read exactly once, then checked; never cast.
   */
  static fromJSON(value: unknown): Approval {
    if (typeof value !== "object" || value === null) {
      throw new LeashError("invalid_option", "Expected an approval object.");
    }
    const raw = snapshotFields(value, ["digest", "granted", "approver", "note"], (message) => {
      throw new LeashError("invalid_option", `Expected an approval object that can be read, but ${message}.`);
    });
    return new Approval(raw.digest as string, {
      granted: raw.granted as boolean,
      approver: raw.approver as string,
      ...(raw.note === undefined ? {} : { note: raw.note as string }),
    });
  }

  toJSON(): ApprovalJson {
    const json: ApprovalJson = { digest: this.digest, granted: this.granted, approver: this.approver };
    if (this.note !== undefined) json.note = this.note;
    return json;
  }
}

/** Whatever answers approval requests at once: an automated policy, or a prompt to a person. */
export type Approver = (request: ApprovalRequest) => Approval | null | undefined | Promise<Approval | null | undefined>;
