import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import { problemResponse } from "./inbox-context.js";
import type { InboxEnv } from "./inbox-context.js";

/** The largest sign-in form read: a token is 52 characters, 4 KiB is plenty. */
const SIGN_IN_BODY_LIMIT = 4 * 1024;

/** The largest body of any other request (an answer form, a JSON answer): its note is at most 2000 characters. */
const BODY_LIMIT = 64 * 1024;

/**
 * Refuses a body over its route's limit with 413 before any route reads it: a `Content-Length` over
 * the limit is refused without reading a byte, and a body sent in chunks is read only up to the limit.
 */
export function limitBodies(): MiddlewareHandler<InboxEnv> {
  const refuse = (limit: number) =>
    bodyLimit({
      maxSize: limit,
      onError: (c) =>
        problemResponse(c as Parameters<typeof problemResponse>[0], {
          status: 413,
          code: "body_too_large",
          message: `This request's body is larger than the ${limit / 1024} KiB the inbox reads; nothing was done.`,
        }),
    });
  const signIn = refuse(SIGN_IN_BODY_LIMIT);
  const other = refuse(BODY_LIMIT);
  return (c, next) => (c.req.path === "/signin" ? signIn(c, next) : other(c, next));
}
