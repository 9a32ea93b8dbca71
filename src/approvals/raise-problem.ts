import type { ApprovalRequest } from "./approval.js";

/** The limits counted in whole units: a raise of one of them is an integer. */
const COUNTED: ReadonlySet<string> = new Set([
  "max_tokens",
  "max_tool_calls",
  "max_steps",
  "budget_tokens",
  "budget_tool_calls",
]);

/**
 * Why an answer does not fit its request, or `undefined` when it does: a raise answers only a limit
 * request; approving a limit request takes a raise; and a raise is a finite number above what was
 * used (an integer for `max_tokens`, `max_tool_calls` and `max_steps`). Read by `store.answer` and by
 * a resume, which refuse such an answer with `invalid_answer` before anything is written.
 */
export function raiseProblem(
  request: ApprovalRequest,
  answer: { granted: boolean; raiseTo?: number | undefined; args?: unknown },
): string | undefined {
  const { raiseTo } = answer;
  if (request.kind === "limit" && answer.args !== undefined)
    return `An edit of the arguments answers a call; run \`${request.runId}\` asks to raise ${request.limit}.`;
  if (request.kind === "call")
    return raiseTo === undefined
      ? undefined
      : `A raise answers a request to raise a limit; step ${request.step} asks to run \`${request.tool}\`.`;
  if (!answer.granted) return undefined;
  if (raiseTo === undefined)
    return `Run \`${request.runId}\` asks to raise ${request.limit}: approve it with a raise (\`Approval.raise(digest, approver, to)\`), or deny it.`;
  // The largest limit a run or a budget keeps exact, as every usage is capped at it.
  if (typeof raiseTo !== "number" || !Number.isFinite(raiseTo) || raiseTo > Number.MAX_SAFE_INTEGER)
    return `Expected the raise of ${request.limit} to be a finite number of at most ${Number.MAX_SAFE_INTEGER}, but it is ${String(raiseTo)}.`;
  if (COUNTED.has(request.limit) && !Number.isSafeInteger(raiseTo))
    return `Expected the raise of ${request.limit} to be a whole number, but it is ${raiseTo}.`;
  if (raiseTo <= request.used)
    return `Expected the raise of ${request.limit} to be more than what was used (${request.used}), but it is ${raiseTo}.`;
  return undefined;
}
