// A whole leash run on aiSdkModel: Agent + modelPlanner over @ai-sdk/openai's chat model against the
// loopback Chat Completions server, streamed and not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Policy, modelPlanner, tool, verifyAudit } from "../../../src/index.js";
import type { AuditRecord, Skill } from "../../../src/index.js";
import type { LoopbackServer } from "../support/harness.js";
import { MODES, mode, withLoopback } from "../support/loopback-test.js";
import { aiSdkHarness } from "./harness.js";
import { answeredIds } from "../support/read-request.js";
import { outcomesOf } from "../support/suite-context.js";

const count: Skill<string, { count: number }> = {
  name: "CountBooks",
  tools: ["read", "write"],
  output: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
  brief: (where) => `Count the books on the ${where} shelf.`,
  check: (output) => (output.count === 3 ? null : "Count again: there are more."),
};

function shelfAgent(server: LoopbackServer, stream: boolean) {
  const written: string[] = [];
  const read = tool({ name: "read", description: "Read the shelf.", execute: () => "three books" });
  const write = tool({
    name: "write",
    description: "Write a label.",
    effect: "write",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: (args: { text: string }) => {
      written.push(args.text);
      return `labelled ${args.text}`;
    },
  });
  const model = aiSdkHarness.client(server.url, { stream, price: { input: 2, output: 8, cacheRead: 0.5 } });
  const agent = new Agent({
    tools: [read, write],
    policy: new Policy({ allowEffects: ["read", "write"], approvalFor: [] }),
    planner: modelPlanner({ model, purpose: "You keep a library." }),
  });
  return { agent, written };
}

for (const stream of MODES) {
  test(`a run on aiSdkModel takes every call of an answer, sees its refusals, and finishes by the hand-back (${mode(stream)})`, async () => {
    await withLoopback(aiSdkHarness, async (server) => {
      server.reply(
        {
          type: "answer",
          text: "Reading and labelling.",
          calls: [
            { id: "call_1", tool: "read", arguments: "{}" },
            { id: "call_2", tool: "write", arguments: '{"text": "top' },
            { id: "call_3", tool: "write", arguments: '{"text":"top"}' },
          ],
          usage: { input: 1000, output: 100, cacheRead: 600 },
        },
        { type: "answer", calls: [{ id: "call_4", tool: "hand_back", arguments: '{"count":2}' }] },
        { type: "answer", calls: [{ id: "call_5", tool: "hand_back", arguments: '{"count":3}' }] },
      );
      const { agent, written } = shelfAgent(server, stream);
      const deltas: string[] = [];
      agent.on("text", ({ delta }) => deltas.push(delta));
      const records: AuditRecord[] = [];
      agent.on("record", (record) => records.push(record));

      const outcome = await agent.do(count, "top");

      assert.equal(outcome.done, true);
      assert.deepEqual(outcome.output, { count: 3 });
      assert.deepEqual(server.refusals, []);
      assert.deepEqual(written, ["top"]);
      assert.deepEqual(outcomesOf(outcome.state), [
        "executed",
        "invalid_arguments",
        "executed",
        "answer_rejected",
        "finished",
      ]);
      assert.equal(deltas.join(""), stream ? "Reading and labelling." : "");
      // (1000 - 600) × 2 + 600 × 0.5 + 100 × 8, per million.
      assert.equal(outcome.state.usage.cost, (400 * 2 + 600 * 0.5 + 100 * 8) / 1e6);
      assert.equal(records.filter((record) => record.event === "model_called").length, 3);
      assert.deepEqual(verifyAudit(agent.audit.records as never), []);

      const [, second, third] = server.requests.map((request) => aiSdkHarness.read(request));
      assert.deepEqual(answeredIds(second), ["call_1", "call_2", "call_3"]);
      assert.equal(second?.results[0]?.content, "three books");
      assert.deepEqual(
        third?.results.map((result) => [result.callId, result.content]),
        [
          ["call_1", "three books"],
          ["call_2", second?.results[1]?.content],
          ["call_3", "labelled top"],
          ["call_4", "Count again: there are more."],
        ],
      );
      assert.deepEqual(third?.tools, ["read", "write", "hand_back"]);
    });
  });
}
