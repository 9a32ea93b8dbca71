import { messageOf } from "../errors/index.js";
import type { Json } from "../json/index.js";
import type { Failure } from "../state/run-state.js";
import type { ActiveRun } from "./active-run.js";

/** Whether a finish is accepted, refused (the planner may try again), or fails the run. */
type AnswerVerdict = { type: "accept" } | { type: "refuse"; why: string } | { type: "fail"; failure: Failure };

function asRefusal(value: unknown, who: string): AnswerVerdict {
  if (value === null || value === undefined) return { type: "accept" };
  if (typeof value === "string") {
    // A refusal is text given as data, and goes into the trail as it is: a lone surrogate is refused.
    if (value.isWellFormed()) return { type: "refuse", why: value };
    return {
      type: "fail",
      failure: {
        code: "done_failed",
        message: `${who} returned a refusal that is not well-formed text (a lone surrogate).`,
      },
    };
  }
  return {
    type: "fail",
    failure: { code: "done_failed", message: `${who} returned ${typeof value}; expected a string (refusal) or null.` },
  };
}

/**
 * Judges an answer: the skill's output schema and `check`, then the agent's done criterion. The
 * first refusal decides; a check that throws or returns something else fails the run (`done_failed`).
 */
export function judgeAnswer(run: ActiveRun, answer: Json): AnswerVerdict {
  const compiled = run.skill;
  if (compiled !== undefined) {
    if (compiled.output !== undefined) {
      const validation = compiled.output.validate(answer);
      if (!validation.valid)
        return {
          type: "refuse",
          why: `The output does not match the skill's schema: ${validation.errors.join("; ")}.`,
        };
    }
    if (compiled.skill.check !== undefined) {
      try {
        const verdict = asRefusal(
          compiled.skill.check(structuredClone(answer) as never),
          `The check of skill \`${compiled.skill.name}\``,
        );
        if (verdict.type !== "accept") return verdict;
      } catch (error) {
        return {
          type: "fail",
          failure: {
            code: "done_failed",
            message: `The check of skill \`${compiled.skill.name}\` threw: ${messageOf(error)}`,
          },
        };
      }
    }
  }
  const { done } = run.core;
  if (done === undefined) return { type: "accept" };
  try {
    return asRefusal(done(structuredClone(answer), run.state.copy()), "The done criterion");
  } catch (error) {
    return { type: "fail", failure: { code: "done_failed", message: `The done criterion threw: ${messageOf(error)}` } };
  }
}
