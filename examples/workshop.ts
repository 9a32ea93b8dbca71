/**
 * The workshop of seed 001, as a program: an Estimator agent estimates a bicycle repair under the
 * shop's rules (a guard), with a scripted model standing in for a real one. It shows a guard that
 * stops a tool and one that keeps an answer from the model, then failed work tried again, then work
 * that gives up once. Run it with `npx tsx examples/workshop.ts`.
 */
import { Agent, MemoryStore, Policy, allow, block, tool, trace, verifyAudit } from "../src/index.js";
import type { Guard, ModelClient, ModelRequest, ModelResponse, Skill } from "../src/index.js";
import { modelPlanner } from "../src/models/model-planner.js";
import { says, scriptedModel } from "../src/testing/index.js";

interface Repair {
  id: string;
  ticket: string;
  fault: string;
  note: string;
  /** Where the customer keeps the spare key: for the mechanic, not for a model. */
  keyIsKept: string;
}

interface Estimate {
  hours: number;
  summary?: string;
}

const repair: Repair = { id: "repair-7", ticket: "T-7", fault: "rear brake does not bite", note: "", keyIsKept: "under the saddle" };
const repairs = new Map([[repair.id, repair]]);
const find = (id: unknown): Repair => {
  const found = repairs.get(String(id));
  if (found === undefined) throw new Error(`No repair ${String(id)}.`);
  return found;
};

const noteRepair = tool({
  name: "NoteRepair",
  description: "Write a note on the repair",
  parameters: {
    type: "object",
    properties: { repair: { type: "string" }, note: { type: "string", maxLength: 400 } },
    required: ["repair", "note"],
    additionalProperties: false,
  },
  effect: "write",
  execute: ({ repair: id, note }) => {
    const found = find(id);
    found.note = note as string;
    return `Noted on ${found.ticket}.`;
  },
});

const whereIsTheKey = tool({
  name: "WhereIsTheKey",
  description: "Read where the key is kept",
  parameters: { type: "object", properties: { repair: { type: "string" } }, required: ["repair"], additionalProperties: false },
  execute: ({ repair: id }) => `The key is ${find(id).keyIsKept}`,
});

/** The workshop's own rules for its agents. */
const shopRules: Guard = {
  name: "Shop rules",
  beforeTool: (_work, _tool, args) => (JSON.stringify(args).includes("customer's fault") ? block("A note does not blame the customer.") : allow()),
  afterTool: (_work, _tool, result) => (JSON.stringify(result).includes("The key is") ? block("Where a key is kept stays in the workshop.") : allow()),
};

const estimateRepair: Skill<Repair, Estimate> = {
  name: "EstimateRepair",
  description: "Estimate one repair.",
  tools: ["NoteRepair", "WhereIsTheKey"],
  output: { type: "object", properties: { hours: { type: "number" }, summary: { type: "string" } }, required: ["hours"], additionalProperties: false },
  brief: (r) => `Ticket ${r.ticket}: ${r.fault}. Its id is ${r.id}.`,
  check: (estimate) => (estimate.hours <= 0 ? "An estimate takes some time." : null),
  retry: { attempts: 2 },
};

// The model answers as the current script says; each scene below gives it a new one.
let answer: (request: ModelRequest, options: { signal: AbortSignal }) => Promise<ModelResponse> = () => Promise.reject(new Error("No script."));
const everyday: ModelClient = { name: "Everyday", generate: (request, options) => answer(request, options) };

const store = new MemoryStore();
const mia = "mia@workshop.test";
const noor = "noor@workshop.test";
const estimator = new Agent({
  name: "Estimator",
  tools: [noteRepair, whereIsTheKey],
  planner: modelPlanner({ model: everyday, price: { input: 1, output: 5 }, purpose: "You estimate bicycle repairs for a small workshop." }),
  // The Estimator changes things alone; were approval needed, only Noor, the manager, could give it.
  policy: new Policy({ allowEffects: ["read", "write"], approvalFor: [], mayApprove: (approver) => approver === noor }),
  limits: { maxCost: 0.05 },
  guards: [shopRules],
  store,
});
estimator.on("run_failed", ({ attempt, failure }) => console.log(`  attempt ${attempt} failed (${failure.code}): ${failure.message}`));
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
console.log(`  done: ${second.done} on attempt ${second.attempt}, output: ${JSON.stringify(second.output)}, retry of ${second.state.retryOf}`);

console.log("3. Work whose every attempt fails gives up once");
const worse = scriptedModel(...Array.from({ length: 6 }, () => says.handBack({ hours: 0 })));
answer = (request, options) => worse.generate(request, options);
const third = await estimator.do(estimateRepair, repair, { principal: mia });
console.log(`  status: ${third.status} after ${third.attempt} attempts`);

const problems = verifyAudit(store.records);
console.log(`The trail holds ${store.records.length} records; verifyAudit finds ${problems.length} problems.`);
if (!first.done || !second.done || third.status !== "failed" || told.includes(repair.keyIsKept) || problems.length > 0) process.exit(1);
