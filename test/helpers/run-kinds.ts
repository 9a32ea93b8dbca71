// Runs of many kinds in one store (as store and sink), untouched: what the check of a saved state
// against its trail must pass without a single false alarm. Each kind is a run id of its own.
import { Agent, Approval, Decision, Policy, modelPlanner, tool } from "../../src/index.js";
import type { AuditSink, Guard, Planner, RunStore } from "../../src/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";

type Store = RunStore & AuditSink;

const lookup = tool({
  name: "lookup",
  parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
  cost: 0.25,
  execute: ({ topic }: { topic: string }) => ({ page: `about ${topic}`, words: [1, 2, 3] }),
});

/** The payment of the brief: a write that waits for a person, then pays what it was asked. */
const pay = tool({
  name: "pay",
  parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
  effect: "write",
  scopes: ["money"],
  execute: ({ amount }: { amount: number }) => ({ paid: amount }),
});

const failing = tool({
  name: "flaky",
  parameters: { type: "object" },
  execute: () => {
    throw new Error("the service said no");
  },
});

const policy = new Policy({ allowEffects: ["read", "write"], grantedScopes: ["money"] });

/** Pays `amount`, then finishes with the step's outcome. */
function payPlanner(amount: number): Planner {
  return (state) =>
    state.steps.length === 0
      ? Decision.act("pay", { amount }, { reason: "the invoice says so" })
      : Decision.finish({ outcome: state.steps.at(-1)?.outcome ?? null, result: state.steps.at(-1)?.result ?? null });
}

function agentOn(
  store: Store,
  planner: Planner,
  extra: { guards?: Guard[]; tools?: ConstructorParameters<typeof Agent>[0]["tools"] } = {},
) {
  return new Agent({
    tools: extra.tools ?? [lookup, pay, failing],
    planner,
    policy,
    store,
    audit: store,
    ...(extra.guards === undefined ? {} : { guards: extra.guards }),
  });
}

/** The run ids {@link fillRunKinds} makes, by kind. */
export const RUN_KINDS = [
  "completed-payment",
  "paused",
  "answered",
  "denied",
  "cancelled",
  "withheld",
  "blocked",
  "failed",
  "stopped",
  "denied-steps",
  "model",
  "interrupted",
  "in-flight",
  "raised-limit",
  "paused-on-limit",
] as const;

/**
 * Fills a store with one run of each kind in {@link RUN_KINDS}: a payment of 10 approved and made,
 * a paused payment, one with a recorded answer, a denied one, a cancelled one, a result a guard kept
 * back, a call a guard stopped, a failed planner, a run out of steps, steps the gates denied, a model
 * run with usage and cost, an interrupted call, and a call in flight when its process "died".
 */
export async function fillRunKinds(store: Store): Promise<void> {
  const payer = agentOn(store, payPlanner(10));
  const paused = await payer.run("pay the invoice", { runId: "completed-payment" });
  if (paused.pending === undefined) throw new Error(`not paused: ${JSON.stringify(paused.toJSON())}`);
  const digest = paused.pending.digest;
  await store.answer("completed-payment", Approval.grant(digest, "noor", "fine"), {
    origin: { via: "cli", user: "noor", host: "desk" },
  });
  await payer.resume("completed-payment");

  await payer.run("pay the invoice", { runId: "paused" });
  const answered = await payer.run("pay the invoice", { runId: "answered" });
  await store.answer("answered", Approval.grant(answered.pending!.digest, "noor", "looks right"));
  await store.answer("answered", Approval.deny(answered.pending!.digest, "mia", "not yet"));
  const denied = await payer.run("pay the invoice", { runId: "denied" });
  await payer.resume(denied, { approvals: [Approval.deny(denied.pending!.digest, "mia", "no")] });
  await payer.run("pay the invoice", { runId: "cancelled" });
  await payer.cancel("cancelled");

  const lookFirst: Planner = (state) =>
    state.steps.length === 0 ? Decision.act("lookup", { topic: "spans" }) : Decision.finish(state.steps.length);
  const keeper: Guard = { name: "keeper", afterTool: () => ({ type: "block", why: "private" }) };
  await agentOn(store, lookFirst, { guards: [keeper] }).run("look", { runId: "withheld" });
  const stopper: Guard = { name: "stopper", beforeTool: () => ({ type: "block", why: "not today" }) };
  await agentOn(store, lookFirst, { guards: [stopper] }).run("look", { runId: "blocked" });
  await agentOn(store, () => {
    throw new Error("the planner broke");
  }).run("fail", { runId: "failed" });
  await agentOn(store, () => Decision.act("lookup", { topic: "again" }, { usage: { tokens: 7, cost: 0.1 } })).run(
    "loop",
    { runId: "stopped", limits: { maxSteps: 3 } },
  );
  const denials: Planner = (state) =>
    [Decision.act("nothing", {}), Decision.act("lookup", { topic: 5 }), Decision.act("flaky", {})][
      state.steps.length
    ] ?? Decision.finish("done");
  await agentOn(store, denials).run("deny", { runId: "denied-steps" });

  const model = scriptedModel(
    says.tool("lookup", { topic: "spans" }, { usage: { inputTokens: 900, outputTokens: 40 } }),
    says.handBack({ summary: "spans" }, { usage: { inputTokens: 1000, outputTokens: 20 } }),
  );
  const planner = modelPlanner({ model, price: { input: 0.3, output: 1.2 }, purpose: "You look things up." });
  await agentOn(store, planner).run("look it up", { runId: "model" });

  // A call that never returns, as if its process died mid-call: the saved state records it in flight.
  const later = tool({
    name: "pay",
    parameters: { type: "object", properties: { amount: { type: "number" } } },
    idempotent: false,
    execute: () => "paid again",
  });
  for (const runId of ["interrupted", "in-flight"]) {
    let started: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const first = agentOn(store, payPlanner(3), {
      tools: [
        tool({
          name: "pay",
          parameters: { type: "object", properties: { amount: { type: "number" } } },
          idempotent: false,
          execute: () => {
            started();
            return new Promise(() => undefined);
          },
        }),
      ],
    });
    void first.run("pay three", { runId });
    await inFlight;
  }
  await agentOn(store, payPlanner(3), { tools: [later] }).resume("interrupted");

  // A run that asked to raise its tool calls and was raised (a recorded raise and one given), and one
  // still paused on its limit with a raise recorded.
  const ticks = new Agent({
    tools: [lookup],
    planner: (state) =>
      state.toolCalls >= 3 ? Decision.finish(state.toolCalls) : Decision.act("lookup", { topic: "t" }),
    policy,
    store,
    audit: store,
    limits: { maxToolCalls: 1, maxSteps: 4, askToRaise: ["max_tool_calls", "max_steps"] },
  });
  const onLimit = await ticks.run("look three times", { runId: "raised-limit" });
  await store.answer("raised-limit", Approval.raise(onLimit.pending!.digest, "finance", 2), {
    origin: { via: "cli", user: "finance", host: "desk" },
  });
  const again = await ticks.resume("raised-limit", {
    approvals: [Approval.raise(onLimit.pending!.digest, "noor", 5)],
  });
  const raised = await ticks.resume("raised-limit", {
    approvals: [Approval.raise(again.pending!.digest, "finance", 9)],
  });
  if (raised.status !== "completed") throw new Error(`not completed: ${JSON.stringify(raised.toJSON())}`);
  const waiting = await ticks.run("look three times", { runId: "paused-on-limit" });
  await store.answer("paused-on-limit", Approval.raise(waiting.pending!.digest, "finance", 4));
}
