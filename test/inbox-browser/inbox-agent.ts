// The app of the inbox's browser tests, on either store as the command line names it: LEASH_DB is a
// SQLite file or a PostgreSQL URL (its schema in LEASH_SCHEMA). As a module it exports `agent` and
// `store` for `leash worker --agent` and `leash serve --agent`; each payment appends a line to the file
// LEASH_TEST_EFFECTS names, so a test counts how often the write ran. Run as a program it starts work
// in its own process and prints the run's id (LEASH_TEST_APPROVERS: see `agent`):
//   inbox-agent.ts pay      a run that pauses before paying (goal LEASH_TEST_GOAL, the model's reason
//                           LEASH_TEST_REASON and the payment's memo LEASH_TEST_MEMO, all optional)
//   inbox-agent.ts give-up  a skill whose every attempt fails, so the agent gives up on it
import { appendFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Agent, Decision, Policy, tool } from "../../src/index.js";
import type { AuditSink, RunStore, Skill } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";

const db = process.env.LEASH_DB ?? "";
const effects = process.env.LEASH_TEST_EFFECTS ?? "";
if (db === "" || effects === "") throw new Error("Set LEASH_DB and LEASH_TEST_EFFECTS for the inbox's agent.");

function optional(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

/** The app's store, on the database the command line names. */
export const store: RunStore & AuditSink = /^postgres(ql)?:\/\//.test(db)
  ? new PostgresStore({ connectionString: db, schema: process.env.LEASH_SCHEMA ?? "public" })
  : new SqliteStore(db);

const reason = optional("LEASH_TEST_REASON");
const memo = optional("LEASH_TEST_MEMO");

const approvers = optional("LEASH_TEST_APPROVERS")?.split(",");

const pay = tool<{ amount: number; memo?: string }>({
  name: "pay",
  description: "Pay an invoice.",
  parameters: {
    type: "object",
    properties: { amount: { type: "number" }, memo: { type: "string" } },
    required: ["amount"],
  },
  effect: "write",
  execute: ({ amount }) => {
    appendFileSync(effects, `${amount}\n`);
    return `paid ${amount}`;
  },
});

/**
 * The app's agent: it asks to pay 10 and waits for a person; once denied, it asks again for 10000
 * (a new request, with a new digest). With LEASH_TEST_APPROVERS (names, comma-separated), its policy
 * lets only those people approve.
 */
export const agent = new Agent({
  name: "payer",
  tools: [pay],
  planner: (state) => {
    const last = state.steps.at(-1);
    const extra = { ...(memo === undefined ? {} : { memo }) };
    const why = reason === undefined ? {} : { reason };
    if (last === undefined) return Decision.act("pay", { amount: 10, ...extra }, why);
    if (last.outcome === "approval_denied" && state.steps.length === 1)
      return Decision.act("pay", { amount: 10000, ...extra }, why);
    return Decision.finish(last.outcome);
  },
  policy: new Policy({
    allowEffects: ["read", "write"],
    ...(approvers === undefined ? {} : { mayApprove: (approver: string) => approvers.includes(approver) }),
  }),
  store,
  audit: store,
});

/** A job no attempt can finish: its check refuses every estimate the planner hands back. */
const estimate: Skill<string, { hours: number }> = {
  name: "EstimateRepair",
  description: "Estimate one repair.",
  tools: [],
  output: { type: "object", properties: { hours: { type: "number" } }, required: ["hours"] },
  brief: (ticket) => `Estimate the repair of ticket ${ticket}.`,
  check: (output) => (output.hours <= 0 ? "An estimate takes some time." : null),
  retry: { attempts: 2 },
};

async function giveUp(): Promise<string> {
  const estimator = new Agent({
    name: "estimator",
    tools: [],
    planner: () => Decision.finish({ hours: 0 }),
    policy: new Policy({ allowEffects: ["read"] }),
    limits: { maxRejections: 0 },
    store,
    audit: store,
  });
  const outcome = await estimator.do(estimate, "T-7", { principal: "mia" });
  return outcome.task;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    if (process.argv[2] === "give-up") {
      process.stdout.write(`${await giveUp()}\n`);
    } else {
      const state = await agent.run(optional("LEASH_TEST_GOAL") ?? "pay the invoice", { principal: "mia" });
      process.stdout.write(`${state.runId}\n`);
    }
  } finally {
    await store.close();
  }
}
