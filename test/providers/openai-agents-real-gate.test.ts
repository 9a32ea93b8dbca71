// `leash/openai-agents` over a real `Gate` on a SQLite file, under the real `run()` of `@openai/agents`:
// the SDK's interruption is leash's recorded request, `state.approve` alone runs nothing, a person's
// answer in the store plus the SDK's approval runs the write once, and a run state restored from its
// text runs nothing twice.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, RunState as AgentsRunState, run, setTracingDisabled } from "@openai/agents";
import { Approval, Gate, Policy, stateAgreesWithTrail, tool, verifyAudit } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { gateTools } from "../../src/providers/openai-agents/index.js";
import { outputsIn, scriptedAgentsModel } from "./openai-agents/scripted-agents-model.js";

setTracingDisabled(true);

test("a write under run() waits for leash's answer, runs once after it, and a restored run state runs nothing again", async () => {
  const folder = mkdtempSync(join(tmpdir(), "leash-agents-gate-"));
  const store = new SqliteStore(join(folder, "runs.db"));
  try {
    const paid: number[] = [];
    const pay = tool({
      name: "pay",
      description: "Pay an amount.",
      effect: "write",
      parameters: {
        type: "object",
        properties: { amount: { type: "number" } },
        required: ["amount"],
        additionalProperties: false,
      },
      execute: ({ amount }) => {
        paid.push(amount as number);
        return { paid: amount as number };
      },
    });
    const gate = new Gate({ tools: [pay], store, policy: new Policy({ allowEffects: ["read", "write"] }) });
    const session = await gate.session("conversation-1", { goal: "pay the invoice" });
    const model = scriptedAgentsModel([
      [{ type: "call", callId: "call_pay", name: "pay", args: { amount: 12 } }],
      [{ type: "text", text: "Not approved yet." }],
      [{ type: "text", text: "Paid." }],
    ]);
    const agent = new Agent({ name: "Assistant", instructions: "Help.", model, tools: gateTools(session) });

    const first = await run(agent, "Pay 12.");
    const interruption = first.interruptions[0];
    assert.ok(interruption !== undefined, "the write raised the SDK's interruption");
    const stored = await store.load("conversation-1");
    assert.equal(stored?.waiting?.length, 1, "leash recorded the request");
    const digest = stored.waiting[0]!.digest;
    const saved = first.state.toString();

    // The SDK's approval alone authorises nothing.
    first.state.approve(interruption);
    const forged = await run(agent, first.state);
    assert.equal(forged.finalOutput, "Not approved yet.");
    assert.match(outputsIn(model.requests[1]!).get("call_pay") ?? "", /^not approved: /);
    assert.deepEqual(paid, []);

    // A person's answer in leash, then the SDK's approval on the run state restored from its text.
    await store.answer("conversation-1", Approval.grant(digest, "noor"));
    const restored = await AgentsRunState.fromString(agent, saved);
    restored.approve(restored.getInterruptions()[0]!);
    const resumed = await run(agent, restored);
    assert.equal(resumed.finalOutput, "Paid.");
    assert.deepEqual(paid, [12]);
    assert.equal(outputsIn(model.requests[2]!).get("call_pay"), JSON.stringify({ paid: 12 }));

    // The same call again, as a second restore would make it: leash gives back the recorded result.
    assert.deepEqual(await session.call("call_pay", "pay", { amount: 12 }), {
      status: "executed",
      result: { paid: 12 },
    });
    assert.deepEqual(paid, [12]);
    const state = await store.load("conversation-1");
    const records = await store.read("conversation-1");
    assert.deepEqual(verifyAudit(records), []);
    assert.deepEqual(stateAgreesWithTrail(state!, records).problems, []);
  } finally {
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  }
});
