import { Agent, Decision, MemoryAuditSink, Policy, tool, verifyAudit } from "../src/index.js";
const noop = tool({ name: "noop", execute: () => "ok" });
for (const n of [10, 100, 1000, 10, 100, 1000, 100, 100]) {
  const sink = new MemoryAuditSink();
  const agent = new Agent({ tools: [noop], planner: (state) => state.steps.length < n ? Decision.act("noop", {}) : Decision.finish("done"), audit: sink, limits: { maxSteps: n + 1 } });
  const t = performance.now();
  const state = await agent.run("go");
  const ms = performance.now() - t;
  console.log(n, state.status, state.toolCalls, (ms * 1000 / n).toFixed(1), "us/step", sink.records.length);
  const t2 = performance.now();
  const p = verifyAudit(sink.records);
  const v = performance.now() - t2;
  console.log(" verify", p.length, Math.round(sink.records.length / v * 1000), "rec/s");
}
