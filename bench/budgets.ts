/**
 * What a shared budget costs per step (API.md section 17). The same runs, each of S steps of one
 * tool with a declared cost and a decision that reports a model's usage, are driven on a SQLite file
 * and on PostgreSQL (DATABASE_URL), each the agent's store and sink: without a budget, and with one
 * (`budget: () => "bench"`, a budget far from its limits, so every run goes to its end). Rounds
 * interleave the two, so drift of the machine falls on both alike. The table gives, per store, the
 * median time of a step with no store at all (the memory sink), without and with the budget, the
 * store's own cost per step (without budget minus no store), what the budget adds, and that as a
 * share of the store's own cost: the target is well under it (at most 0.5).
 *
 *   npm run build && npx tsx bench/budgets.ts [--steps 50] [--runs 20] [--rounds 5] [--stores sqlite,postgres] [--json] [--no-save]
 *
 * Exits 1 when the budget adds more than half the store's own cost per step on a store measured.
 */
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { Agent, Decision, tool } from "leash";
import type { AuditSink, RunStore } from "leash";
import { machineInfo } from "../src/bench/machine-info.js";
import { databaseUrl, medianOf, openFreshStore } from "./bench-stores.js";
import type { BenchStoreKind } from "./bench-stores.js";
import { writeResults } from "./results-file.js";

const { values } = parseArgs({
  options: {
    steps: { type: "string", default: "50" },
    runs: { type: "string", default: "20" },
    rounds: { type: "string", default: "5" },
    stores: { type: "string", default: "sqlite,postgres" },
    json: { type: "boolean", default: false },
    "no-save": { type: "boolean", default: false },
  },
});
const steps = Number(values.steps);
const runs = Number(values.runs);
const rounds = Number(values.rounds);
if (![steps, runs, rounds].every((value) => Number.isSafeInteger(value) && value >= 1)) {
  throw new Error("Expected --steps, --runs and --rounds to be positive integers.");
}
const stores = values.stores.split(",").filter((kind): kind is "sqlite" | "postgres" => {
  if (kind !== "sqlite" && kind !== "postgres") throw new Error(`Unknown store \`${kind}\`: sqlite or postgres.`);
  return kind !== "postgres" || databaseUrl() !== undefined;
});
if (values.stores.includes("postgres") && databaseUrl() === undefined) {
  process.stderr.write("DATABASE_URL is not set: PostgreSQL is left out.\n");
}

/** The agent of one measurement: S steps of a costed tool, each decision reporting a model's usage. */
function agentOf(store: (RunStore & AuditSink) | undefined, budgeted: boolean): Agent {
  const fetch = tool({ name: "fetch", cost: 0.001, execute: () => "page" });
  return new Agent({
    tools: [fetch],
    planner: (state) =>
      state.steps.length < steps
        ? Decision.act("fetch", {}, { usage: { tokens: 120, cost: 0.0002 } })
        : Decision.finish("done"),
    limits: { maxSteps: steps + 1, maxToolCalls: steps },
    ...(store === undefined ? {} : { store, audit: store }),
    ...(budgeted ? { budget: () => "bench" } : {}),
  });
}

/** The median time of one step, in µs, over `runs` runs one after another. */
async function timeSteps(kind: BenchStoreKind, budgeted: boolean): Promise<number> {
  const opened = await openFreshStore(kind, "leash-bench-budgets");
  try {
    const store = opened.store;
    if (budgeted) await store!.setBudget!("bench", { maxCost: 1e12, maxTokens: 1e15, maxToolCalls: 1e12 });
    const agent = agentOf(store, budgeted);
    // One run first, not timed: the statements are prepared and the code is warm for the rest.
    await agent.run("warm up");
    const perStep: number[] = [];
    for (let run = 0; run < runs; run++) {
      const began = performance.now();
      const state = await agent.run(`run ${run}`);
      if (state.status !== "completed") throw new Error(`A run ended ${state.status}: ${state.failure?.message ?? ""}`);
      perStep.push(((performance.now() - began) / steps) * 1000);
    }
    return medianOf(perStep);
  } finally {
    await opened.remove();
  }
}

interface Row {
  store: "sqlite" | "postgres";
  noStoreUs: number;
  withoutUs: number;
  withUs: number;
  storeOwnUs: number;
  addedUs: number;
  share: number;
}

const rows: Row[] = [];
for (const kind of stores) {
  const none: number[] = [];
  const without: number[] = [];
  const withBudget: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternated within the round and its order flipped each round, so neither always goes first.
    const order = round % 2 === 0 ? [false, true] : [true, false];
    none.push(await timeSteps("none", false));
    for (const budgeted of order) (budgeted ? withBudget : without).push(await timeSteps(kind, budgeted));
    process.stderr.write(`${kind}: round ${round + 1} of ${rounds} done\n`);
  }
  const noStoreUs = medianOf(none);
  const withoutUs = medianOf(without);
  const withUs = medianOf(withBudget);
  const storeOwnUs = withoutUs - noStoreUs;
  const addedUs = withUs - withoutUs;
  rows.push({ store: kind, noStoreUs, withoutUs, withUs, storeOwnUs, addedUs, share: addedUs / storeOwnUs });
}

const target = 0.5;
const format = (value: number): string => value.toFixed(1);
const markdown = [
  `Runs of ${steps} steps (a costed tool, a decision reporting a model's usage); each figure is the median over ` +
    `${rounds} rounds of the median step of ${runs} runs. "store's own" is a step without a budget minus a step ` +
    `with no store; "added" is a step with a budget minus one without.`,
  "",
  "| store | no store, µs/step | store, no budget, µs/step | store, with a budget, µs/step | store's own, µs/step | added by the budget, µs/step | added / store's own |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (row) =>
      `| ${row.store} | ${format(row.noStoreUs)} | ${format(row.withoutUs)} | ${format(row.withUs)} | ` +
      `${format(row.storeOwnUs)} | ${format(row.addedUs)} | ${row.share.toFixed(2)} |`,
  ),
  "",
  `Target: a budget adds at most ${target}× the store's own cost per step: ` +
    `${rows.every((row) => row.share <= target) ? "met" : "missed"}.`,
  "",
].join("\n");
const command = `npx tsx bench/budgets.ts --steps ${steps} --runs ${runs} --rounds ${rounds} --stores ${stores.join(",")}`;
const result = { steps, runs, rounds, rows, target };
if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + "\n");
else process.stdout.write(markdown);
if (!values["no-save"]) {
  const written = writeResults("budgets", {
    title: "What a shared budget costs per step",
    command,
    machine: machineInfo(),
    markdown,
    json: result,
  });
  process.stderr.write(`Written: ${written.join(", ")}\n`);
}
if (rows.some((row) => row.share > target)) process.exitCode = 1;
