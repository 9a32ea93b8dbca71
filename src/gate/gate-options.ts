import type { Approver } from "../approvals/approval.js";
import { LeashError, checkOptionKeys } from "../errors/index.js";
import type { Guard } from "../guards/guard.js";
import type { Limits } from "../limits/limits.js";
import type { Policy } from "../policy/policy.js";
import type { AgentCore } from "../run/agent-core.js";
import { SILENT_FEED } from "../run/agent-core.js";
import type { RunStoreWithAudit } from "../stores/run-store.js";
import { isAuditSink, isRunStore } from "../stores/run-store.js";
import type { Tool } from "../tools/tool.js";
import type { Toolset } from "../tools/toolset.js";
import { checkBudgetOption, checkSharedOptions } from "../agent/agent-options.js";
import type { BudgetOption } from "../run/agent-core.js";

/** Options of {@link Gate}. */
export interface GateOptions {
  /** The tools the app's loop may call through the gate. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tools: Toolset | Tool<any>[];
  /** What the calls may do, and who may answer their requests; default `new Policy()` (least privilege). */
  policy?: Policy;
  /** Bounds of each session's run (section 4); `maxDurationMs` counts the time leash spends on its calls. */
  limits?: Limits;
  guards?: Guard[];
  /**
   * Where the sessions are kept: a store that also holds the audit trail (`MemoryStore`,
   * `SqliteStore`, `PostgresStore`), so each call's records commit with its state in one
   * transaction and an answer given anywhere (`store.answer`) is in the trail at once.
   */
  store: RunStoreWithAudit;
  /** Answers a request at once; `null` leaves it waiting for a person. */
  approver?: Approver;
  /** The gate's name in guard context and the audit trail. Default "gate". */
  name?: string;
  /**
   * Names the shared budget each session spends from (API.md section 17): called once as a session
   * is created with `{ runId, goal, principal, agent }` (`agent`: the gate's name); `undefined` means
   * none. Calls and `session.charge` are taken from it, and a session stops at it.
   */
  budget?: BudgetOption;
  clock?: () => Date;
  randomId?: () => string;
}

/** Every option {@link GateOptions} names: any other key is refused. */
const GATE_OPTIONS = [
  "tools",
  "policy",
  "limits",
  "guards",
  "store",
  "approver",
  "name",
  "budget",
  "clock",
  "randomId",
] as const;

const fail = (message: string): never => {
  throw new LeashError("invalid_option", message);
};

/** The planner of a gate's sessions: never asked, since the app's own loop decides each call. */
const NO_PLANNER = (): never => {
  throw new LeashError("internal_error", "A gate's session has no planner: its app's loop decides each call.");
};

/** Checks and defaults every option of a gate in one place, before any side effect. */
export function buildGateCore(options: GateOptions): AgentCore {
  if (typeof options !== "object" || options === null) fail("Expected the gate options to be an object.");
  checkOptionKeys(options, GATE_OPTIONS, "new Gate(options)");
  const shared = checkSharedOptions(options, "gate");
  // A session's limits stop it: the app's loop, not leash, would have to wait for a person's raise,
  // and a call that waits for a raise would hold up every other call of the session.
  if ((shared.limits.askToRaise?.length ?? 0) > 0)
    fail(
      "The `limits.askToRaise` option is not supported by a Gate: a session's limits stop it (`stopped`); raise them in the gate's `limits` instead.",
    );
  const store: unknown = options.store;
  if (!isRunStore(store) || !isAuditSink(store))
    fail(
      "Expected `store` to be a RunStore that also keeps the audit trail (MemoryStore, SqliteStore, PostgresStore): a session's state and records commit together.",
    );
  const sink = store as RunStoreWithAudit;
  const budget = checkBudgetOption(options.budget, sink);
  return {
    ...shared,
    planner: NO_PLANNER,
    store: sink,
    audit: sink,
    storeIsSink: true,
    done: undefined,
    skills: new Map(),
    maxArgumentsSize: 1_000_000,
    maxResultSize: 1_000_000,
    recordModelText: false,
    feed: SILENT_FEED,
    ...(budget === undefined ? {} : { budget }),
  };
}
