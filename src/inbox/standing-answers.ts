import { LeashError } from "../errors/leash-error.js";
import type { RunState } from "../state/run-state.js";
import { waitingRequests } from "../operate/waiting-requests.js";

/** An answer recorded for a run, as `state.answers` holds it. */
export type StandingAnswer = RunState["answers"][number];

/** What an answer given in the inbox does, judged against the answers already recorded for its request. */
export type AnswerEffect =
  /** The first answer of this approver: recorded, with a sentence to show when other answers change its weight. */
  | { type: "record"; notice?: string }
  /** The same answer this approver gave already: nothing is recorded again, and nothing changes. */
  | { type: "repeat"; notice: string };

/** An approver's name as a sentence shows it: plain when it is a name the inbox signs in, else quoted as JSON. */
export function nameText(name: string): string {
  // A name a registry could hold cannot pass for anything else; any other (a `leash approve --as`
  // claim) is quoted, so that no name reads as part of the sentence around it.
  return /^[A-Za-z0-9._@-]{1,64}$/.test(name) ? name : JSON.stringify(name);
}

/**
 * The answers recorded for a request the run waits on now (by default its pending one; a gate's
 * session may wait on several): none when that request is not waiting.
 */
export function answersToPending(
  state: RunState,
  digest: string | undefined = state.pending?.digest,
): StandingAnswer[] {
  if (digest === undefined || !waitingRequests(state).some(({ request }) => request.digest === digest)) return [];
  return state.answers.filter((answer) => answer.digest === digest);
}

/**
 * Whether an answer is this signed-in approver's own: given under their name through the inbox (or a
 * link made for them), as its origin says. A `leash approve --as NAME` from a terminal is a claim
 * anyone there can make, so it is shown as that name's answer but never taken for the viewer's: it
 * neither hides their buttons nor stops them answering.
 */
export function givenBy(answer: StandingAnswer, approver: string): boolean {
  const origin = answer.origin;
  return (
    answer.approver === approver &&
    origin !== undefined &&
    (origin.via === "leash-serve" || origin.via === "link") &&
    origin.user === approver
  );
}

/** `approved` or `denied`. */
export function verdictText(answer: { granted: boolean; raiseTo?: number | undefined }): string {
  if (answer.raiseTo !== undefined) return `raised to ${answer.raiseTo}`;
  return answer.granted ? "approved" : "denied";
}

function list(names: readonly string[]): string {
  const shown = [...new Set(names)].map(nameText);
  return shown.length <= 1 ? (shown[0] ?? "") : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`;
}

/**
 * What an approver's answer to a request does, given the answers already recorded for it. The inbox
 * takes one answer per approver and request: the same answer again changes nothing (`repeat`), and a
 * different one from the same approver is refused (`stale_state`, 409), since the page no longer
 * offers it and the first answer may already be acted on. Another approver's answer is recorded,
 * because the app's policy may not count the first one; when a denial already stands, an approval
 * is recorded with a notice that says so, since a denial by an approver the policy allows wins over
 * every approval.
 */
export function answerEffect(answers: readonly StandingAnswer[], approver: string, granted: boolean): AnswerEffect {
  const mine = answers.find((answer) => givenBy(answer, approver));
  const verdict = granted ? "approval" : "denial";
  if (mine !== undefined && mine.granted === granted)
    return { type: "repeat", notice: `Your ${verdict} of this request was recorded already; nothing changed.` };
  if (mine !== undefined) {
    throw new LeashError(
      "stale_state",
      `You ${verdictText(mine)} this request already, and an answer given in the inbox is not changed: your ${mine.granted ? "approval" : "denial"} stands, and nothing was recorded.`,
      { details: { answered: true } },
    );
  }
  const others = answers.filter((answer) => !givenBy(answer, approver));
  const deniers = others.filter((answer) => !answer.granted).map((answer) => answer.approver);
  const approvers = others.filter((answer) => answer.granted).map((answer) => answer.approver);
  if (granted && deniers.length > 0)
    return {
      type: "record",
      notice: `Your approval was recorded, but a denial already stands (denied by ${list(deniers)}): a denial by an approver the app's policy allows wins over every approval, so the step runs only if the policy refuses ${deniers.length === 1 ? "that approver" : "those approvers"}.`,
    };
  if (!granted && approvers.length > 0)
    return {
      type: "record",
      notice: `Your denial was recorded; it wins over the approval by ${list(approvers)} if the app's policy allows you to answer.`,
    };
  return { type: "record" };
}
