/**
 * Where a guard is asked: before or after a model call, before or after a tool call. Kept beside the
 * trace lines a saved state holds, which name it, so the check of a state against its records can
 * rebuild them without reaching up to the guards.
 */
export type GuardPoint = "beforeModel" | "afterModel" | "beforeTool" | "afterTool";

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
