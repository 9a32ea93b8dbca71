import { Agent as OpenAiAgent, Runner, tool as openAiTool, Usage } from "@openai/agents-core";
import type { Model, ModelRequest, ModelResponse } from "@openai/agents-core";
import { z } from "zod";

class FakeModel implements Model {
  calls = 0;
  constructor(readonly steps: number) {}
  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    const index = this.calls++;
    if (index < this.steps) {
      return { usage: new Usage(), output: [{ type: "function_call", callId: `call_${index}`, name: "noop", arguments: "{}", status: "completed" }] };
    }
    return { usage: new Usage(), output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] }] };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> { throw new Error("no stream"); }
}
let count = 0;
const noop = openAiTool({ name: "noop", description: "no-op", parameters: z.object({}), execute: async () => { count++; return "ok"; } });
for (const n of [10, 100, 1000]) {
  const model = new FakeModel(n);
  const agent = new OpenAiAgent({ name: "bench", instructions: "", model, tools: [noop] });
  const runner = new Runner({ tracingDisabled: true });
  const t = performance.now();
  const result = await runner.run(agent, "go", { maxTurns: n + 2 });
  const ms = performance.now() - t;
  console.log(n, result.finalOutput, count, (ms * 1000 / n).toFixed(1), "us/step");
}
