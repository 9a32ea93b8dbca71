/**
 * The workshop of seed 001, as a program: an Estimator agent estimates a bicycle repair under the
 * shop's rules (a guard), with a scripted model standing in for a real one. It shows a guard that
 * stops a tool and one that keeps an answer from the model, then failed work tried again, then work
 * that gives up once. Run it with `npx tsx examples/workshop.ts`.
 */
import { MemoryStore, trace, verifyAudit } from "../src/index.js";
import type { ModelClient, ModelRequest, ModelResponse } from "../src/index.js";
// The workshop itself (its repair, tools, rules, skill and Estimator) is the one `leash demo` runs.
import { createEstimator, estimateRepair, repairT7, workshopTools } from "../src/cli/demo/workshop.js";
import { says, scriptedModel } from "../src/testing/index.js";

const repair = repairT7();
const repairs = new Map([[repair.id, repair]]);

// The model answers as the current script says; each scene below gives it a new one.
let answer: (request: ModelRequest, options: { signal: AbortSignal }) => Promise<ModelResponse> = () =>
  Promise.reject(new Error("No script."));
const everyday: ModelClient = { name: "Everyday", generate: (request, options) => answer(request, options) };

const store = new MemoryStore();
const mia = "mia@workshop.test";
const noor = "noor@workshop.test";
// The Estimator changes things alone; were approval needed, only Noor, the manager, could give it.
const estimator = createEstimator({ store, model: everyday, tools: workshopTools(repairs), manager: noor });
estimator.on("run_failed", ({ attempt, failure }) =>
  console.log(`  attempt ${attempt} failed (${failure.code}): ${failure.message}`),
);
estimator.on("gave_up", ({ attempts }) => console.log(`  heard: gave up after ${attempts} attempts`));

console.log("1. A guard stops a tool and keeps an answer from the model");
const script = scriptedModel(
  says.tool("NoteRepair", { repair: repair.id, note: "Worn pads: the customer's fault." }),
  says.tool("WhereIsTheKey", { repair: repair.id }),
  says.tool("NoteRepair", { repair: repair.id, note: "Worn pads." }),
  says.handBack({ hours: 1, summary: "Pads." }, { usage: { inputTokens: 1_200, outputTokens: 30 } }),
);
answer = (request, options) => script.generate(request, options);
const first = await estimator.do(estimateRepair, repair, { principal: mia });
const told = JSON.stringify(script.requests);
console.log(`  done: ${first.done}, output: ${JSON.stringify(first.output)}`);
console.log(`  the repair's note: ${JSON.stringify(repairs.get(repair.id)?.note)}`);
for (const line of trace(first.state).said) console.log(`  said: ${line}`);
console.log(`  ran: ${trace(first.state).ran.join(", ")}`);
console.log(`  steps: ${first.state.steps.map((step) => step.outcome).join(", ")}`);
console.log(`  the model was told where the key is: ${told.includes(repair.keyIsKept)}`);
console.log(`  spent: ${first.state.usage.tokens} tokens, ${first.state.usage.cost.toFixed(6)}`);

console.log("2. Failed work is tried again");
const tasks = (): number => store.records.filter((record) => record.event === "run_started").length;
const bad = scriptedModel(says.handBack({ hours: 0 }), says.handBack({ hours: 0 }), says.handBack({ hours: 0 }));
const good = scriptedModel(says.handBack({ hours: 1, summary: "An hour." }));
const before = tasks();
answer = (request, options) => (tasks() - before >= 2 ? good : bad).generate(request, options);
const second = await estimator.do(estimateRepair, repair, { principal: mia });
console.log(
  `  done: ${second.done} on attempt ${second.attempt}, output: ${JSON.stringify(second.output)}, retry of ${second.state.retryOf}`,
);

console.log("3. Work whose every attempt fails gives up once");
const worse = scriptedModel(...Array.from({ length: 6 }, () => says.handBack({ hours: 0 })));
answer = (request, options) => worse.generate(request, options);
const third = await estimator.do(estimateRepair, repair, { principal: mia });
console.log(`  status: ${third.status} after ${third.attempt} attempts`);

const problems = verifyAudit(store.records);
console.log(`The trail holds ${store.records.length} records; verifyAudit finds ${problems.length} problems.`);
if (!first.done || !second.done || third.status !== "failed" || told.includes(repair.keyIsKept) || problems.length > 0)
  process.exit(1);
