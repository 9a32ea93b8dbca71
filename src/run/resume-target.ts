import type { AuditHead, AuditRecord } from "../audit/audit-record.js";
import { LeashError, StateError, checkOptionKeys } from "../errors/index.js";
import { ENDED_STATUSES } from "../state/outcomes.js";
import { RunState } from "../state/run-state.js";
import { Approval } from "../approvals/approval.js";
import type { AgentCore, CompiledSkill } from "./agent-core.js";

/**
 * What a resume works on, read once: a run id as given, or a parsed copy of a state (its `toJSON()`
 * called once), so the id checked is the id of the state resumed. Anything else goes on as it is, to
 * be refused later with a clear error.
 */
export function readResumeTarget(target: unknown): { target: unknown; runId: string | undefined } {
  if (typeof target === "string") return { target, runId: target };
  if (typeof target !== "object" || target === null) return { target, runId: undefined };
  let toJSON: unknown;
  try {
    toJSON = (target as { toJSON?: unknown }).toJSON;
  } catch {
    return { target, runId: undefined };
  }
  if (typeof toJSON !== "function") return { target, runId: undefined };
  const copy = RunState.fromJSON((toJSON as () => unknown).call(target));
  return { target: copy, runId: copy.runId };
}

async function resolveState(core: AgentCore, target: unknown): Promise<{ state: RunState; fromStore: boolean }> {
  const { store } = core;
  if (typeof target === "string") {
    if (store === undefined) {
      throw new StateError(
        "run_not_found",
        `Run \`${target}\` cannot be found: this agent has no store. Pass the paused state itself, or give the agent a store.`,
        { details: { runId: target } },
      );
    }
    const state = await store.load(target);
    if (state === null)
      throw new StateError("run_not_found", `No run \`${target}\` in the store.`, { details: { runId: target } });
    return { state, fromStore: true };
  }
  if (typeof target !== "object" || target === null || typeof (target as { toJSON?: unknown }).toJSON !== "function") {
    throw new LeashError("invalid_option", "Expected a run id or a RunState to resume.");
  }
  // The caller's copy is never changed: resume works on its own.
  const copy = RunState.fromJSON((target as RunState).toJSON());
  if (store === undefined) return { state: copy, fromStore: false };
  const stored = await store.load(copy.runId);
  if (stored === null)
    throw new StateError("run_not_found", `No run \`${copy.runId}\` in the store.`, { details: { runId: copy.runId } });
  if (copy.revision !== stored.revision) {
    throw new StateError(
      "stale_state",
      `This copy of run \`${copy.runId}\` is at revision ${copy.revision}, but the store holds revision ${stored.revision}: resume the stored state (by its id).`,
      { details: { runId: copy.runId, copy: copy.revision, stored: stored.revision } },
    );
  }
  return { state: stored, fromStore: true };
}

function holdsHead(trail: readonly AuditRecord[], head: AuditHead | null): boolean {
  if (head === null) return true;
  const record = trail[head.seq];
  if (record?.seq === head.seq && record.digest === head.digest) return true;
  return trail.some((item) => item.seq === head.seq && item.digest === head.digest);
}

/** A stored run as a take-over found it: its state, its trail, and the trail's records past the state's head. */
export interface FoundRun {
  state: RunState;
  trail: AuditRecord[];
  /** The records past the state's head: with a separate sink, what a process wrote before it died. */
  later: AuditRecord[];
  /** Where the chain goes on: the trail's last record (it may be ahead of the state). */
  head: AuditHead | null;
}

/**
 * Finds the run a resume takes over and refuses it in the order the contract gives:
 * `run_not_found`, `stale_state` (an older copy), `audit_truncated`, `run_ended`, `stale_state`
 * (answers to a run that awaits none), `already_resumed`. Nothing is written.
 */
export async function findResumable(core: AgentCore, target: unknown, answering: boolean): Promise<FoundRun> {
  const resolved = await resolveState(core, target);
  let { state } = resolved;
  const { runId } = state;
  const trail = await core.audit.read(runId);
  // A caller with neither a store nor a shared sink holds its copies itself: a sink that has never
  // seen the run cannot check it, and the resume goes on from the copy's head. Anywhere else a trail
  // without the state's head was cut or replaced.
  const unseen = trail.length === 0 && core.store === undefined;
  if (!unseen && !holdsHead(trail, state.auditHead)) {
    throw new StateError(
      "audit_truncated",
      `The audit trail of run \`${runId}\` lacks the record the state points at (seq ${state.auditHead?.seq}): the trail was cut or replaced.`,
      { details: { runId, head: state.auditHead } },
    );
  }
  // A gate's session is driven by its app's own loop, call by call (`gate.session`): a resume (or a
  // worker's) would drive it from a planner it never had.
  if (state.gate === true) {
    throw new StateError(
      "invalid_state",
      `Run \`${runId}\` is a gate's session: its calls go through \`gate.session(runId).call(...)\`, and a resume leaves it alone.`,
      { details: { runId, gate: true } },
    );
  }
  if (ENDED_STATUSES.has(state.status)) {
    throw new StateError("run_ended", `Run \`${runId}\` has ended (${state.status}); it cannot be resumed.`, {
      details: { runId, status: state.status },
    });
  }
  if (answering && state.status !== "awaiting_approval") {
    throw new StateError(
      "stale_state",
      `Run \`${runId}\` is ${state.status}, not awaiting approval: the answers are for a request no longer pending.`,
      { details: { runId, status: state.status } },
    );
  }
  const headSeq = state.auditHead?.seq ?? -1;
  const later = trail.filter((record) => record.seq > headSeq);
  if (later.some((record) => record.event === "run_resumed")) {
    if (!resolved.fromStore) {
      throw new StateError(
        "already_resumed",
        `This paused copy of run \`${runId}\` was resumed already (the audit trail says so); an approval runs its action once.`,
        { details: { runId } },
      );
    }
    const reloaded = core.store === undefined ? null : await core.store.load(runId);
    if (reloaded === null || reloaded.revision !== state.revision) {
      throw new StateError("stale_state", `Run \`${runId}\` was moved by another process since it was loaded.`, {
        details: { runId },
      });
    }
    state = reloaded;
  }
  return { state, trail, later, head: headOf(trail, state) };
}

/**
 * Where a take-over's chain goes on: with a sink separate from the store a crash can leave the trail
 * ahead of the state, and the chain goes on from the trail's last record.
 */
export function headOf(trail: readonly AuditRecord[], state: RunState): AuditHead | null {
  const last = trail.at(-1);
  return last === undefined ? state.auditHead : { seq: last.seq, digest: last.digest };
}

/** Options of `agent.resume`. */
export interface ResumeOptions {
  /** Answers to the pending request; answers recorded in the store (`store.answer`) count too. */
  approvals?: Approval[];
  /**
   * Aborted when the caller no longer holds the run (a worker's lease lost): the run's signal is
   * aborted, so a tool honouring `ctx.signal` stops, nothing more is recorded or saved, and the
   * resume rejects with `stale_state`. The run stays as last saved, for whoever holds it now.
   */
  lease?: AbortSignal;
}

/** The keys of {@link ResumeOptions}: any other is refused, so a misspelt option never goes unseen. */
const RESUME_OPTION_KEYS: readonly string[] = ["approvals", "lease"];

/** Checks a resume's options, before anything is read: the answers rebuilt, the lease an AbortSignal. */
export function readResumeOptions(options: unknown): { approvals: Approval[]; lease: AbortSignal | undefined } {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new LeashError("invalid_option", "Expected the resume options to be an object.");
  checkOptionKeys(options, RESUME_OPTION_KEYS, "agent.resume(..., options)");
  const { lease } = options as ResumeOptions;
  const given: unknown = (options as ResumeOptions).approvals ?? [];
  if (lease !== undefined && !(lease instanceof AbortSignal))
    throw new LeashError("invalid_option", "Expected `lease` to be an AbortSignal.");
  if (!Array.isArray(given)) throw new LeashError("invalid_option", "Expected `approvals` to be an array of Approval.");
  // Each rebuilt from one read of its fields: an Approval (or a Proxy of one) may not answer the same twice.
  const approvals = given.map((item: unknown) => Approval.fromJSON(item));
  return { approvals, lease };
}

/** The compiled skill a stored run was doing, found by its name among the agent's skills. */
export function skillOf(core: AgentCore, name: string | undefined): CompiledSkill | undefined {
  if (name === undefined) return undefined;
  const found = core.skills.get(name);
  if (found === undefined) {
    throw new StateError(
      "invalid_state",
      `The run was doing skill \`${name}\`, which this agent does not know; pass it in \`skills\`.`,
    );
  }
  return found;
}
