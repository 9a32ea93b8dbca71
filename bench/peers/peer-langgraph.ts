import type { BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Scenario } from "../../src/bench/scenario.js";
import { loadModule } from "../../src/bench/scenario.js";

/**
 * LangGraph.js: the prebuilt ReAct agent (`createReactAgent`: a StateGraph of a model node and a
 * `ToolNode`) with one tool, against a fake chat model that asks for the tool N times, then answers.
 */
export const langGraphPeer: Scenario = {
  id: "langgraph",
  label: "LangGraph.js (createReactAgent)",
  group: "peer",
  open: async (steps) => {
    const { createReactAgent } = await loadModule(
      () => import("@langchain/langgraph/prebuilt"),
      "@langchain/langgraph",
    );
    const { BaseChatModel } = await loadModule(
      () => import("@langchain/core/language_models/chat_models"),
      "@langchain/core",
    );
    const { AIMessage } = await loadModule(() => import("@langchain/core/messages"), "@langchain/core");
    const tools = await loadModule(() => import("@langchain/core/tools"), "@langchain/core");
    const { z } = await loadModule(() => import("zod"), "zod");

    /** Asks for the no-op tool `steps` times, then answers "done"; binding tools changes nothing. */
    class ScriptedChatModel extends BaseChatModel {
      #turn = 0;
      _llmType(): string {
        return "scripted";
      }
      override bindTools(): this {
        return this;
      }
      _generate(_messages: BaseMessage[]): Promise<ChatResult> {
        const index = this.#turn++;
        const message =
          index < steps
            ? new AIMessage({
                content: "",
                tool_calls: [{ id: `call_${index}`, name: "noop", args: {}, type: "tool_call" }],
              })
            : new AIMessage({ content: "done" });
        return Promise.resolve({
          generations: [{ text: typeof message.content === "string" ? message.content : "", message }],
        });
      }
    }

    let calls = 0;
    const noop = tools.tool(
      () => {
        calls++;
        return Promise.resolve("ok");
      },
      { name: "noop", description: "Does nothing.", schema: z.object({}) },
    );
    return {
      prepare: () => {
        const agent = createReactAgent({ llm: new ScriptedChatModel({}), tools: [noop] });
        return Promise.resolve(async () => {
          const before = calls;
          // Each tool call is two graph steps (model, tools); the limit leaves room for all of them.
          const result = await agent.invoke(
            { messages: [{ role: "user", content: "call the no-op tool" }] },
            { recursionLimit: 2 * steps + 10 },
          );
          if (result.messages.at(-1)?.content !== "done") throw new Error("LangGraph did not finish the scripted run.");
          return calls - before;
        });
      },
      close: () => Promise.resolve(),
    };
  },
};
