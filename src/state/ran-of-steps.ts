/**
 * The tools whose calls started, in order, as `RunState.ran` holds them, rebuilt from a run's steps:
 * a call is added to `ran` once, when it first starts (`starts` goes from 0 to 1; a restart after a
 * crash adds nothing), and steps start in step order, so `ran` is the tool of every act step with
 * `starts` above 0, in step order. The steps are not checked here (the state's check does that): a
 * step that is not of that shape adds nothing.
 */
export function ranOfSteps(steps: readonly unknown[]): string[] {
  const ran: string[] = [];
  for (const step of steps) {
    if (typeof step !== "object" || step === null) continue;
    const { decision, starts } = step as { decision?: unknown; starts?: unknown };
    if (typeof starts !== "number" || !(starts > 0) || typeof decision !== "object" || decision === null) continue;
    const { type, tool } = decision as { type?: unknown; tool?: unknown };
    if (type === "act" && typeof tool === "string") ran.push(tool);
  }
  return ran;
}
