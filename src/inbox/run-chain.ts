import { isLeashError } from "../errors/leash-error.js";
import type { RunState } from "../state/run-state.js";
import { checkRunTrail, coverageText, disagreeingParts } from "../operate/check-trail.js";
import type { TrailCheck } from "../operate/check-trail.js";
import type { CliStore } from "../operate/open-store.js";

/** A problem of a run's chain, named as `leash verify` names it. */
interface ChainProblem {
  run: string | null;
  seq: number | null;
  problem: string;
  message: string;
  /** For a `state_mismatch`: the step it is in, when it is a step's. */
  step?: number;
  /** For a `state_mismatch`: the part of the state that disagrees. */
  field?: string;
}

/**
 * Whether what the inbox shows of a run is what its trail proves, with the problems `leash verify`
 * would name (the chain's and the saved state's `state_mismatch`), and the check itself.
 */
export interface RunChain {
  /** Verified: the chain holds, holds the state's head, and the saved state agrees with it. */
  ok: boolean;
  /** Whether the chain holds (and holds the state's head), whatever the saved state says. */
  chainHolds: boolean;
  /** Whether the saved state agrees with the chain; false too when the records could not be read. */
  stateAgrees: boolean;
  /** In one sentence: "verified", or which part is not covered ({@link coverageText}). */
  coverage: string;
  /** The parts of the saved state that disagree with the chain (`step 2 arguments`, `usage`). */
  disagreeing: string[];
  /** The parts of the saved state no record carries, which nothing could check. */
  unchecked: string[];
  problems: ChainProblem[];
  /** The check of the run's records against its state; absent when its records could not be read. */
  check?: TrailCheck;
}

/**
 * Checks a run's trail in the store the way `leash verify` and `leash show` do ({@link checkRunTrail}):
 * the chain must hold and hold the state's `auditHead`. A record the store cannot read back is a
 * `corrupt` problem rather than an error page.
 */
export async function runChain(store: CliStore, state: RunState): Promise<RunChain> {
  let records;
  try {
    records = await store.read(state.runId);
  } catch (error) {
    if (!isLeashError(error, "audit_corrupt")) throw error;
    const seq = (error.details as { seq?: unknown } | undefined)?.seq;
    return {
      ok: false,
      chainHolds: false,
      stateAgrees: false,
      coverage: "NOT verified: the trail cannot be read",
      disagreeing: [],
      unchecked: ["the whole run (its records cannot be read)"],
      problems: [
        { run: state.runId, seq: typeof seq === "number" ? seq : null, problem: "corrupt", message: error.message },
      ],
    };
  }
  const check = checkRunTrail(state, records);
  const problems: ChainProblem[] = check.problems.map((problem) => ({
    run: problem.run,
    seq: problem.seq,
    problem: problem.problem,
    message: problem.message,
  }));
  for (const problem of check.state.problems) {
    problems.push({
      run: problem.run,
      seq: null,
      problem: problem.problem,
      message: problem.message,
      field: problem.field,
      ...(problem.step === undefined ? {} : { step: problem.step }),
    });
  }
  return {
    ok: check.verified,
    chainHolds: check.problems.length === 0,
    stateAgrees: check.state.problems.length === 0,
    coverage: coverageText(check),
    disagreeing: disagreeingParts(check.state),
    unchecked: check.state.unchecked,
    problems,
    check,
  };
}
