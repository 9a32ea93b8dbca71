import { isLeashError } from "../index.js";
import type { RunState } from "../index.js";
import { checkRunTrail } from "../operate/check-trail.js";
import type { TrailCheck } from "../operate/check-trail.js";
import type { CliStore } from "../operate/open-store.js";

/** A problem of a run's chain, named as `leash verify` names it. */
interface ChainProblem {
  run: string | null;
  seq: number | null;
  problem: string;
  message: string;
}

/** Whether a run's audit chain holds, with the problems `leash verify` would name, and the check itself. */
export interface RunChain {
  ok: boolean;
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
      problems: [
        { run: state.runId, seq: typeof seq === "number" ? seq : null, problem: "corrupt", message: error.message },
      ],
    };
  }
  const check = checkRunTrail(state, records);
  const problems = check.problems.map((problem) => ({
    run: problem.run,
    seq: problem.seq,
    problem: problem.problem,
    message: problem.message,
  }));
  return { ok: problems.length === 0, problems, check };
}
