import { messageOf } from "../errors/index.js";
import type { Guard, GuardPoint, GuardedWork, Verdict } from "./guard.js";

/** What the guards said at one point: all allowed, one blocked, or one threw. */
export type GuardResult =
  | { type: "allow" }
  | { type: "block"; guard: string; why: string }
  | { type: "failed"; guard: string; message: string };

function isVerdict(value: unknown): value is Verdict {
  if (typeof value !== "object" || value === null) return false;
  const verdict = value as { type?: unknown; why?: unknown };
  return verdict.type === "allow" || (verdict.type === "block" && typeof verdict.why === "string");
}

// Called as methods of the guard, so a guard written as a class keeps its `this`.
function ask(
  guard: Guard,
  point: GuardPoint,
  work: GuardedWork,
  subject: [unknown, unknown?],
): Verdict | Promise<Verdict> | undefined {
  const [first, second] = subject;
  switch (point) {
    case "beforeModel":
      return guard.beforeModel?.(work, first as never);
    case "afterModel":
      return guard.afterModel?.(work, first as never);
    case "beforeTool":
      return guard.beforeTool?.(work, first as never, second as never);
    case "afterTool":
      return guard.afterTool?.(work, first as never, second as never);
  }
}

/**
 * Asks each guard that has this point, in the order listed; the first block decides. A guard that
 * throws, or answers something that is not a verdict, is a failure, never a silent allow.
 */
export async function askGuards(
  guards: readonly Guard[],
  point: GuardPoint,
  work: GuardedWork,
  ...subject: [unknown, unknown?]
): Promise<GuardResult> {
  for (const guard of guards) {
    if (typeof guard[point] !== "function") continue;
    let verdict: unknown;
    try {
      verdict = await ask(guard, point, { ...work }, subject);
    } catch (error) {
      return {
        type: "failed",
        guard: guard.name,
        message: `Guard \`${guard.name}\` threw at ${point}: ${messageOf(error)}`,
      };
    }
    if (!isVerdict(verdict)) {
      return {
        type: "failed",
        guard: guard.name,
        message: `Guard \`${guard.name}\` answered ${point} with something that is not allow() or block(why).`,
      };
    }
    if (verdict.type === "block") return { type: "block", guard: guard.name, why: verdict.why };
  }
  return { type: "allow" };
}

/** The line a block adds to `trace(state).said`, in the exact wording the trace promises. */
export function saidLine(point: GuardPoint, guard: string, why: string, tool?: string): string {
  switch (point) {
    case "beforeTool":
      return `${guard} stopped ${tool ?? "a tool"}: ${why}`;
    case "afterTool":
      return `${guard} kept what ${tool ?? "a tool"} answered from the model: ${why}`;
    case "beforeModel":
      return `${guard} stopped what was going to the model: ${why}`;
    case "afterModel":
      return `${guard} kept what the model said from being acted on: ${why}`;
  }
}
