// A run with an interrupted step, made for real: a child process runs an approved non-idempotent
// write on the test's store, is killed with SIGKILL while the write is in flight, and the run is
// resumed here, which marks the call `interrupted` (whether it took effect is unknown) and finishes.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunState } from "../../src/index.js";
import { SCHEMA_VARIABLE } from "../fixtures/stores/open-store.js";
import { readEffects, STARTED_MARKER, storeAgent } from "../fixtures/stores/store-agent.js";
import { killHard, startFixture } from "../stores/fixture-process.js";
import type { CliStore } from "./cli-stores.js";

/** The tool the interrupted run calls. */
export const INTERRUPTED_TOOL = "write_note";

/** Runs `runId` in a child killed mid-call, resumes it on the test's store, and returns the ended state. */
export async function interruptedRun(target: CliStore, runId: string): Promise<RunState> {
  const effects = join(target.cwd, `${runId}.effects`);
  const location = target.args[1] as string;
  const env = target.kind === "postgres" ? { [SCHEMA_VARIABLE]: target.args[3] as string } : undefined;
  const child = startFixture("stores/crash-child.ts", [target.kind, location, "hang", "write", runId, effects], env);
  try {
    await child.waitFor((line) => line === STARTED_MARKER);
  } finally {
    await killHard(child);
  }
  const state = await storeAgent({ store: target.store, tool: "write", effectsFile: effects, approve: true }).resume(
    runId,
  );
  assert.equal(state.steps[0]?.outcome, "interrupted");
  assert.equal(readEffects(effects).length, 1, "the write started once, and was never repeated");
  return state;
}
