import type { RecordedAnswer } from "./run-state.js";
import type { Fact } from "./trail-facts.js";
import { sameJson } from "./trail-facts.js";

/**
 * Takes out of `left` the `approval_answered` fact of a recorded answer (same digest, approver, grant,
 * note, edit and origin), if one is there: each record accounts for one answer only. Whether it did.
 */
export function takeAnsweredFact(left: Fact[], answer: RecordedAnswer): boolean {
  const at = left.findIndex(
    (fact) =>
      fact.data.digest === answer.digest &&
      fact.data.approver === answer.approver &&
      fact.data.granted === answer.granted &&
      fact.data.note === answer.note &&
      sameJson(fact.data.args, answer.args) &&
      sameJson(fact.data.origin, answer.origin),
  );
  if (at < 0) return false;
  left.splice(at, 1);
  return true;
}
