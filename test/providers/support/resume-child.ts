// A second process that resumes a run another process paused: it builds the suite's agent over the
// same SQLite file and a client over the same loopback server (from the harness, by name), lets a
// worker take one pass over the store (it finds the answer recorded by `leash approve` and resumes the
// run), and prints what came of it as one JSON line.
//
//   node --import tsx resume-child.ts <harness> <url> <stream: true|false> <db> <calls file> <run id>
import { SqliteStore } from "../../../src/stores/sqlite/index.js";
import { Worker } from "../../../src/worker/index.js";
import { loadHarness } from "./harnesses.js";
import { suiteAgent } from "./suite-agent.js";
import { outcomesOf } from "./suite-context.js";

const [name = "", url = "", stream = "", db = "", calls = "", runId = ""] = process.argv.slice(2);
const harness = await loadHarness(name);
const store = new SqliteStore(db);
try {
  const agent = suiteAgent({
    model: harness.client(url, { stream: stream === "true", parallelToolCalls: true }),
    store,
    approvalFor: ["write"],
    calls,
  });
  const worker = new Worker({ agent, store, pollMs: 50 });
  const resumed = await worker.runOnce();
  const state = await store.load(runId);
  if (state === null) throw new Error(`The store has no run ${runId}.`);
  if (resumed < 1) throw new Error(`The worker resumed ${resumed} runs; the paused run was not taken.`);
  process.stdout.write(
    `${JSON.stringify({
      status: state.status,
      answer: state.answer,
      outcomes: outcomesOf(state),
      failure: state.failure ?? null,
    })}\n`,
  );
} finally {
  await store.close();
}
