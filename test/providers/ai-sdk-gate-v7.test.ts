// `gateTools` under ai 7, whose approvals differ from ai 6's: a second ask of `needsApproval` that
// hears `false` no longer denies the call, and the app may set `toolApproval` (a status per tool, or a
// function), which the SDK asks before the tool's own `needsApproval`. ai 7 needs Node 22 or later, so
// it is not a dependency of this tree: .ci/node-pass.sh installs it into a folder of its own and names
// it in LEASH_AI7_DIR; without that folder (or on an older Node) this file is skipped, saying why.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { Approval, Gate, MemoryStore, Policy } from "../../src/index.js";
import { gateTools, leashTool } from "../../src/providers/ai-sdk/index.js";

const folder = process.env.LEASH_AI7_DIR ?? "";
const entry = join(folder, "node_modules", "ai", "dist", "index.js");
const major = Number(process.versions.node.split(".")[0]);
const skip =
  folder === ""
    ? "LEASH_AI7_DIR is not set: .ci/node-pass.sh installs ai 7 there on Node 24"
    : !existsSync(entry)
      ? `ai 7 is not installed in LEASH_AI7_DIR (${folder})`
      : major < 22
        ? `ai 7 needs Node 22 or later; this is Node ${process.versions.node}`
        : false;

/** The parts of ai 7 this file uses, typed as far as it reads them. */
interface Ai7 {
  generateText(options: Record<string, unknown>): Promise<{
    text: string;
    content: { type: string; approvalId?: string; toolCall?: { toolCallId: string } }[];
    response: { messages: unknown[] };
  }>;
  tool(spec: Record<string, unknown>): Record<string, unknown>;
  stepCountIs(count: number): unknown;
}
interface Ai7Test {
  MockLanguageModelV4: new (options: { doGenerate: (options: { prompt: unknown[] }) => Promise<unknown> }) => object;
}

async function loadAi7(): Promise<{ ai: Ai7; aiTest: Ai7Test }> {
  const ai = (await import(pathToFileURL(entry).href)) as Ai7;
  const aiTest = (await import(
    pathToFileURL(join(folder, "node_modules", "ai", "dist", "test", "index.js")).href
  )) as Ai7Test;
  return { ai, aiTest };
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function scripted(aiTest: Ai7Test, answers: ({ call: [string, string, unknown] } | { text: string })[]) {
  const prompts: unknown[][] = [];
  const model = new aiTest.MockLanguageModelV4({
    doGenerate: (options) => {
      prompts.push(options.prompt);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("The scripted model has no answer left.");
      if ("text" in answer) {
        return Promise.resolve({
          content: [{ type: "text", text: answer.text }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        });
      }
      const [toolCallId, toolName, input] = answer.call;
      return Promise.resolve({
        content: [{ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      });
    },
  });
  return { model, prompts };
}

function toolResult(prompt: unknown[] | undefined, callId: string): unknown {
  for (const message of (prompt ?? []) as {
    role: string;
    content: { type: string; toolCallId?: string; output?: { value?: unknown } }[];
  }[]) {
    if (message.role !== "tool") continue;
    const part = message.content.find((each) => each.type === "tool-result" && each.toolCallId === callId);
    if (part !== undefined) return part.output?.value;
  }
  return undefined;
}

async function mailGate(ai: Ai7) {
  const sent: string[] = [];
  const store = new MemoryStore();
  const sendEmail = ai.tool({
    inputSchema: z.object({ to: z.string() }),
    execute: ({ to }: { to: string }) => {
      sent.push(to);
      return `sent to ${to}`;
    },
  });
  const tools = [leashTool(sendEmail, { name: "send_email", effect: "external" })];
  const gate = new Gate({
    tools,
    policy: new Policy({ allowEffects: ["read", "external"] }),
    store,
  });
  return { sent, store, tools, session: await gate.session("conversation-v7") };
}

test(
  "under ai 7, a call sent to a person stops generateText, and runs once after leash holds the grant",
  { skip },
  async () => {
    const { ai, aiTest } = await loadAi7();
    const mail = await mailGate(ai);
    const { sent, store } = mail;
    const tools = gateTools(mail.session, { tools: mail.tools });
    const prompt = [{ role: "user", content: "Mail Ann." }];
    const first = scripted(aiTest, [{ call: ["call_1", "send_email", { to: "ann" }] }]);
    const asked = await ai.generateText({ model: first.model, tools, messages: prompt, stopWhen: ai.stepCountIs(3) });
    const request = asked.content.find((part) => part.type === "tool-approval-request");
    assert.equal(request?.toolCall?.toolCallId, "call_1");
    const messages = [
      ...prompt,
      ...asked.response.messages,
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: request?.approvalId, approved: true }] },
    ];
    const forged = scripted(aiTest, [{ text: "Not approved." }]);
    await ai.generateText({ model: forged.model, tools, messages, stopWhen: ai.stepCountIs(3) });
    assert.match(String(toolResult(forged.prompts[0], "call_1")), /^not approved: /);
    assert.deepEqual(sent, []);

    const waiting = (await store.load("conversation-v7"))?.waiting ?? [];
    await store.answer("conversation-v7", Approval.grant(waiting[0]!.digest, "noor"));
    for (const _ of [1, 2]) {
      const again = scripted(aiTest, [{ text: "Sent." }]);
      await ai.generateText({ model: again.model, tools, messages, stopWhen: ai.stepCountIs(3) });
      assert.equal(toolResult(again.prompts[0], "call_1"), "sent to ann");
    }
    assert.deepEqual(sent, ["ann"], "ran once");
  },
);

test("under ai 7, the app's own toolApproval of a call authorises nothing in leash", { skip }, async () => {
  const { ai, aiTest } = await loadAi7();
  const { sent, session, tools: gateToolList } = await mailGate(ai);
  const run = scripted(aiTest, [{ call: ["call_1", "send_email", { to: "bo" }] }, { text: "Not approved." }]);
  await ai.generateText({
    model: run.model,
    tools: gateTools(session, { tools: gateToolList }),
    toolApproval: { send_email: "approved" },
    messages: [{ role: "user", content: "Mail Bo." }],
    stopWhen: ai.stepCountIs(3),
  });
  assert.match(String(toolResult(run.prompts[1], "call_1")), /^not approved: /);
  assert.deepEqual(sent, []);
});
