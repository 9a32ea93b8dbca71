import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { AIMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool as lcTool } from "@langchain/core/tools";
import { z } from "zod";

class FakeToolModel extends BaseChatModel {
  calls = 0;
  constructor(readonly steps: number) { super({}); }
  _llmType() { return "fake"; }
  bindTools() { return this; }
  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const index = this.calls++;
    const message = index < this.steps
      ? new AIMessage({ content: "", tool_calls: [{ id: `call_${index}`, name: "noop", args: {}, type: "tool_call" }] })
      : new AIMessage({ content: "done" });
    return { generations: [{ text: "", message }] };
  }
}
let count = 0;
const noop = lcTool(async () => { count++; return "ok"; }, { name: "noop", description: "no-op", schema: z.object({}) });
for (const n of [10, 100, 1000]) {
  const agent = createReactAgent({ llm: new FakeToolModel(n), tools: [noop] });
  const t = performance.now();
  const result = await agent.invoke({ messages: [{ role: "user", content: "go" }] }, { recursionLimit: 2 * n + 10 });
  const ms = performance.now() - t;
  console.log(n, result.messages.at(-1)?.content, count, (ms * 1000 / n).toFixed(1), "us/step");
}
