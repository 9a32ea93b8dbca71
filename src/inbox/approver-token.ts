import { createHash, randomBytes } from "node:crypto";
import { LeashError } from "../errors/leash-error.js";

/** What every approver token begins with, so that a leaked one is recognised (by a person or a secret scanner). */
const APPROVER_TOKEN_PREFIX = "leash_at_";

/** 32 random bytes in base64url: 43 characters, no padding. */
const TOKEN_SHAPE = /^leash_at_[A-Za-z0-9_-]{43}$/;

/** An approver's name: 1 to 64 letters, digits, `.`, `_`, `@` or `-`. */
const NAME_SHAPE = /^[A-Za-z0-9._@-]{1,64}$/;

/** A new approver token: {@link APPROVER_TOKEN_PREFIX} and 32 bytes of `crypto.randomBytes` in base64url. */
export function newApproverToken(): string {
  return `${APPROVER_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/** Whether a value has the shape of an approver token; one that does not is never looked up. */
export function isApproverTokenShape(value: unknown): value is string {
  return typeof value === "string" && TOKEN_SHAPE.test(value);
}

/** The SHA-256 of a token, in lowercase hex: the only form of it a registry keeps. */
export function approverTokenHash(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Checks an approver's name against the rule, else `invalid_option`. */
export function checkApproverName(name: unknown): string {
  if (typeof name !== "string" || !NAME_SHAPE.test(name)) {
    throw new LeashError(
      "invalid_option",
      "Expected an approver's name of 1 to 64 characters, each a letter, a digit or one of . _ @ -.",
    );
  }
  return name;
}

/** The refusal of a name that is taken. */
export function approverExists(name: string): LeashError {
  return new LeashError("approver_exists", `There is an approver named ${name} already; remove them first.`);
}

/** The refusal of a name the registry does not hold. */
export function approverNotFound(name: string): LeashError {
  return new LeashError("approver_not_found", `There is no approver named ${name}.`);
}
