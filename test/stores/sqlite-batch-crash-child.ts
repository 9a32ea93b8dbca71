// A process that runs many runs at once on one SQLite file and is killed with SIGKILL by
// sqlite-group-commit.test.ts while their saves are being batched. Usage:
//   node sqlite-batch-crash-child.ts <database> <runs> <steps>
// Each start of the tool prints `started <run id> <step>` with a synchronous write, so the line is
// out before the process can be killed; the planner waits a random few milliseconds between steps,
// so the runs' saves arrive spread over many turns of the event loop.
import { writeSync } from "node:fs";
import { Agent, Decision, tool } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";

const [database, runsText, stepsText] = process.argv.slice(2);
if (database === undefined || runsText === undefined || stepsText === undefined)
  throw new Error("Usage: sqlite-batch-crash-child.ts <database> <runs> <steps>");
const runs = Number(runsText);
const steps = Number(stepsText);
const store = new SqliteStore(database);
const note = tool({
  name: "note",
  execute: (_args, context) => {
    writeSync(1, `started ${context.runId} ${context.step}\n`);
    return "noted";
  },
});
const agent = new Agent({
  tools: [note],
  planner: async (state) => {
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 5)));
    return state.toolCalls < steps ? Decision.act("note", {}) : Decision.finish("done");
  },
  limits: { maxSteps: steps + 1 },
  store,
  audit: store,
});
await Promise.all(Array.from({ length: runs }, (_, index) => agent.run("note it", { runId: `batched-${index}` })));
writeSync(1, "all done\n");
