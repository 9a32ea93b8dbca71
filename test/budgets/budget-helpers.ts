// What the shared-budget tests share: the stores they run on (the store as the agents' sink, and a
// separate sink), a paid counting tool, planners, and a model client with a known usage per call.
import type { TestContext } from "node:test";
import assert from "node:assert/strict";
import { Decision, MemoryAuditSink, MemoryStore, stateAgreesWithTrail, tool, verifyAudit } from "../../src/index.js";
import type { AuditSink, ModelClient, ModelResponse, Planner, RunStore, RunStoreWithAudit } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { tempFolder } from "../cli/cli-helpers.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { freshStore } from "../postgres/database.js";

/** A store with shared budgets, as the tests use it. */
export type BudgetStore = RunStoreWithAudit &
  Required<Pick<RunStore, "setBudget" | "budget" | "resetBudget" | "budgets" | "chargeBudget" | "raiseBudget">>;

/** Where a test's agents keep their runs: a store, and the sink their trails go to (the store itself or not). */
export interface Setup {
  store: BudgetStore;
  audit: AuditSink;
  /** Another store object on the same data (a second process's view): the same object in memory. */
  reopen(): BudgetStore;
}

/** One kind of setup: a name for the test titles, and how to make one. */
export interface SetupKind {
  name: string;
  sink: boolean;
  make(t: TestContext): Setup;
}

function sqliteFile(t: TestContext): string {
  const folder = tempFolder();
  t.after(folder.remove);
  return `${folder.path}/runs.db`;
}

function openSqlite(t: TestContext, path: string): BudgetStore {
  const store = new SqliteStore(path);
  t.after(() => store.close());
  return store;
}

/** Whether the SQLite store keeps shared budgets (it does once its budget methods exist). */
export const sqliteHasBudgets = typeof (SqliteStore.prototype as Partial<BudgetStore>).setBudget === "function";

/** Every setup the budget tests run on. */
export const SETUPS: SetupKind[] = [
  {
    name: "MemoryStore as the sink",
    sink: true,
    make: () => {
      const store = new MemoryStore() as BudgetStore;
      return { store, audit: store, reopen: () => store };
    },
  },
  {
    name: "MemoryStore with a separate sink",
    sink: false,
    make: () => {
      const store = new MemoryStore() as BudgetStore;
      return { store, audit: new MemoryAuditSink(), reopen: () => store };
    },
  },
  ...(sqliteHasBudgets
    ? [
        {
          name: "SqliteStore as the sink",
          sink: true,
          make: (t: TestContext): Setup => {
            const path = sqliteFile(t);
            const store = openSqlite(t, path);
            return { store, audit: store, reopen: () => openSqlite(t, path) };
          },
        },
        {
          name: "SqliteStore with a separate sink",
          sink: false,
          make: (t: TestContext): Setup => {
            const path = sqliteFile(t);
            const store = openSqlite(t, path);
            return { store, audit: new MemoryAuditSink(), reopen: () => openSqlite(t, path) };
          },
        },
      ]
    : []),
];

/** A PostgreSQL store on a fresh schema, dropped after the test, and how to open it again. */
function postgresSetup(t: TestContext, url: string, sink: boolean): Setup {
  const made = freshStore(url);
  t.after(made.cleanup);
  const store = made.store as unknown as BudgetStore;
  const reopen = (): BudgetStore => {
    const again = new PostgresStore({ connectionString: url, schema: made.schema });
    t.after(() => again.close());
    return again;
  };
  return { store, audit: sink ? store : new MemoryAuditSink(), reopen };
}

const DATABASE_URL = process.env.DATABASE_URL;

// PostgreSQL runs when a server is given (`npm test` starts one where its binaries are installed).
if (DATABASE_URL !== undefined && DATABASE_URL !== "")
  SETUPS.push(
    { name: "PostgresStore as the sink", sink: true, make: (t) => postgresSetup(t, DATABASE_URL, true) },
    { name: "PostgresStore with a separate sink", sink: false, make: (t) => postgresSetup(t, DATABASE_URL, false) },
  );

/** A read tool that counts its calls in `calls` and declares `cost` per call. */
export function tick(calls: string[], cost = 0) {
  return tool({
    name: "tick",
    cost,
    execute: (_args, context) => {
      calls.push(context.runId);
      return calls.length;
    },
  });
}

/** Ticks until the run made `ticks` calls, then finishes with its count. */
export function ticker(ticks: number): Planner {
  return (state) => (state.toolCalls >= ticks ? Decision.finish(state.toolCalls) : Decision.act("tick", {}));
}

/**
 * A model client whose every answer used `tokens` tokens (half in, half out) at a price that makes
 * each call cost `cost`; `calls` counts the answers given.
 */
export function model(tokens: number, cost: number, calls: { count: number }): ModelClient {
  // The price is per million tokens: a call of `tokens` tokens costs `cost`.
  const perMillion = tokens === 0 ? 0 : (cost * 1e6) / tokens;
  return {
    name: "fixed",
    price: { input: perMillion, output: perMillion },
    generate: (): Promise<ModelResponse> => {
      calls.count += 1;
      return Promise.resolve({
        calls: [],
        text: "ok",
        usage: { inputTokens: tokens / 2, outputTokens: tokens / 2 },
      });
    },
  };
}

/** A planner that calls the model once per decision, then ticks, until `ticks` calls ran. */
export function modelTicker(client: ModelClient, ticks: number): Planner {
  return async (state, _tools, context) => {
    await context.callModel(client, { system: "", messages: [], tools: [] });
    return state.toolCalls >= ticks ? Decision.finish(state.toolCalls) : Decision.act("tick", {});
  };
}

/** Asserts that a run's trail verifies and that its saved state agrees with it. */
export async function verifiesClean(setup: Setup, runId: string): Promise<void> {
  const trail = await setup.audit.read(runId);
  assert.deepEqual(verifyAudit(trail), []);
  const state = await setup.store.load(runId);
  assert.ok(state !== null, `run ${runId} is stored`);
  assert.deepEqual(stateAgreesWithTrail(state, trail).problems, []);
}

/** Money compared within rounding. */
export function near(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-9, `expected ${expected}, got ${actual}`);
}
