import { Agent, Decision, MemoryAuditSink, tool } from "../src/index.js";
const noop = tool({ name: "noop", execute: () => "ok" });
const n = 100;
let total = 0;
const started = performance.now();
for (let i = 0; i < 300; i++) {
  const sink = new MemoryAuditSink();
  const agent = new Agent({ tools: [noop], planner: (state) => state.steps.length < n ? Decision.act("noop", {}) : Decision.finish("done"), audit: sink, limits: { maxSteps: n + 1 } });
  const t = performance.now();
  await agent.run("go");
  total += performance.now() - t;
}
console.log((total * 1000 / (300 * n)).toFixed(1), "us/step", performance.now() - started);
