import { join } from "node:path";
import type { AuditSink, RunStore, Tool } from "../index.js";
import { Agent, Decision, JsonlAuditSink, MemoryAuditSink, tool } from "../index.js";
import type { FsyncMode } from "../index.js";
import type { Scenario, ScenarioCell } from "./scenario.js";
import { loadModule } from "./scenario.js";

/** A store that is also the sink, as `leash/sqlite` exports it. */
export type StoreAndSink = RunStore & AuditSink;

/** The tool every scenario calls: no arguments, returns "ok". */
export function noopTool(): Tool {
  return tool({ name: "noop", description: "Does nothing.", execute: () => "ok" });
}

/**
 * The leash run of the overhead benchmark: a no-op tool called N times by a planner that acts until
 * the state counts N calls, then finishes, under `maxSteps` N + 1.
 */
export function noopAgent(steps: number, options: { audit?: AuditSink; store?: RunStore }): Agent {
  return new Agent({
    tools: [noopTool()],
    planner: (state) => (state.toolCalls < steps ? Decision.act("noop", {}) : Decision.finish("done")),
    limits: { maxSteps: steps + 1 },
    name: "overhead-bench",
    ...options,
  });
}

/** A cell whose runs share one sink or store, as a long-lived agent's runs do. */
function agentCell(
  steps: number,
  options: { audit?: AuditSink; store?: RunStore },
  close: () => Promise<void>,
): ScenarioCell {
  const agent = noopAgent(steps, options);
  return {
    prepare: () => Promise.resolve(async () => (await agent.run("call the no-op tool")).toolCalls),
    close,
  };
}

/** leash with the memory sink and no store: the cost of bounding and auditing alone. */
const leashMemory: Scenario = {
  id: "leash-memory",
  label: "leash, memory sink",
  group: "leash",
  open: (steps) => Promise.resolve(agentCell(steps, { audit: new MemoryAuditSink() }, () => Promise.resolve())),
};

/** leash with the JSONL sink in a temporary folder, with the given fsync mode. */
function leashJsonl(fsync: FsyncMode): Scenario {
  return {
    id: `leash-jsonl-${fsync}`,
    label: `leash, JSONL sink (fsync ${fsync})`,
    group: "leash",
    open: (steps, workspace) => {
      const sink = new JsonlAuditSink(join(workspace, `jsonl-${fsync}-${steps}.jsonl`), { fsync });
      return Promise.resolve({
        ...agentCell(steps, { audit: sink }, () => sink.close()),
        fsyncCount: () => sink.fsyncCount,
      });
    },
  };
}

/** Opens `leash/sqlite`'s store at a path, or throws `ScenarioUnavailable` while it does not exist. */
export async function openSqliteStore(path: string): Promise<StoreAndSink & { close(): Promise<void> }> {
  const module = await loadModule(() => import("../stores/sqlite/index.js"), "leash/sqlite");
  return new module.SqliteStore(path);
}

/** leash with the SQLite store as both store and sink: a state save and its records in one commit. */
const leashSqlite: Scenario = {
  id: "leash-sqlite",
  label: "leash, SQLite store",
  group: "leash",
  open: async (steps, workspace) => {
    const store = await openSqliteStore(join(workspace, `sqlite-${steps}.db`));
    return agentCell(steps, { store, audit: store }, () => store.close());
  },
};

/** The leash rows of the table, in order. */
export function leashScenarios(): Scenario[] {
  return [leashMemory, leashJsonl("none"), leashJsonl("batch"), leashJsonl("always"), leashSqlite];
}
