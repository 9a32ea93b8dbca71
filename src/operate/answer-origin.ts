import { hostname, userInfo } from "node:os";
import type { RunStore } from "../stores/run-store.js";

/** Who gave an answer, as `store.answer` records it (the port's `AnswerOrigin`). */
export type AnswerOrigin = NonNullable<NonNullable<Parameters<RunStore["answer"]>[2]>["origin"]>;

/**
 * The operating-system user running the command line. `userInfo()` throws where the uid has no entry
 * in the password database (a container run with `--user 1234`): then `USER` or `LOGNAME`, then the uid.
 */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    const named = [process.env.USER, process.env.LOGNAME].find((name) => name !== undefined && name !== "");
    if (named !== undefined) return named;
    const uid = process.getuid?.();
    return uid === undefined ? "unknown" : `uid ${uid}`;
  }
}

/**
 * Where an answer given on the command line comes from, as the operating system tells it: recorded
 * beside the name given with `--as`, which is only a claim anyone at the keyboard can type.
 */
export function cliOrigin(): AnswerOrigin {
  let host: string;
  try {
    host = hostname();
  } catch {
    host = "unknown";
  }
  return { via: "cli", user: osUser(), host };
}
