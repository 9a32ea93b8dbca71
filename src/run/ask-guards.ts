import { messageOf } from "../errors/index.js";
import { raceAbort } from "./race-abort.js";
import type { Guard, GuardPoint, GuardedWork, Verdict } from "../guards/guard.js";

/** What the guards said at one point: all allowed, one blocked, or one threw. */
export type GuardResult =
  | { type: "allow" }
  | { type: "block"; guard: string; why: string }
  | { type: "failed"; guard: string; message: string }
  /** The run was cancelled while a guard decided: what it says later is ignored. */
  | { type: "aborted" };

/**
 * Reads a guard's answer once into a plain verdict, or says why it is not one. `type` and `why` are
 * each read exactly once (a getter that answers "block" and then "allow" cannot let a call through),
 * and a `why` must be well-formed text: a lone surrogate is refused, as every text given as data is.
 */
function readVerdict(value: unknown): Verdict | string {
  if (typeof value !== "object" || value === null) return "something that is not allow() or block(why)";
  let type: unknown;
  let why: unknown;
  try {
    type = (value as { type?: unknown }).type;
    if (type === "block") why = (value as { why?: unknown }).why;
  } catch (error) {
    return `a verdict that threw when read (${messageOf(error)})`;
  }
  if (type === "allow") return { type: "allow" };
  if (type !== "block" || typeof why !== "string") return "something that is not allow() or block(why)";
  if (!why.isWellFormed()) return "block(why) with a `why` that is not well-formed text (a lone surrogate)";
  return { type: "block", why };
}

type Hook = (this: Guard, work: GuardedWork, first: unknown, second?: unknown) => unknown;

/**
 * Asks each guard that has this point, in the order listed; the first block decides. A guard that
 * throws, or answers something that is not a verdict, is a failure, never a silent allow. The hook and
 * the guard's name are read once per guard; the hook is called as a method, so a guard written as a
 * class keeps its `this`.
 */
export async function askGuards(
  guards: readonly Guard[],
  point: GuardPoint,
  work: GuardedWork,
  signal: AbortSignal,
  ...subject: [unknown, unknown?]
): Promise<GuardResult> {
  for (const guard of guards) {
    let name = "(unnamed)";
    let verdict: unknown;
    try {
      const read: unknown = guard.name;
      if (typeof read === "string") name = read.toWellFormed();
      // Read once and called as a method of the guard below, so a class's `this` is kept.
      const hook = (guard as unknown as Record<GuardPoint, unknown>)[point];
      if (typeof hook !== "function") continue;
      const [first, second] = subject;
      // Raced against the run's signal: a guard that hangs cannot keep a cancel from ending the run.
      const raced = await raceAbort(() => (hook as Hook).call(guard, { ...work }, first, second), signal);
      if (raced.type === "aborted") return { type: "aborted" };
      if (raced.type === "threw") throw raced.error;
      verdict = raced.value;
    } catch (error) {
      return { type: "failed", guard: name, message: `Guard \`${name}\` threw at ${point}: ${messageOf(error)}` };
    }
    const read = readVerdict(verdict);
    if (typeof read === "string") {
      return { type: "failed", guard: name, message: `Guard \`${name}\` answered ${point} with ${read}.` };
    }
    if (read.type === "block") return { type: "block", guard: name, why: read.why };
  }
  return { type: "allow" };
}
