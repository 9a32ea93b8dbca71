// A run as OpenTelemetry spans, printed by the SDK's console exporter: one span per stretch of the
// run (before and after an approval), per step, per model call and per tool call. Each span carries
// the seq and digest of the audit record that ended it, so a trace leads back into the verified trail.
// Run: npm run build && npx tsx examples/otel.ts
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Agent, Approval, MemoryStore, Policy, modelPlanner, tool, verifyAudit } from "leash";
import { traceAgent } from "leash/otel";
import { says, scriptedModel } from "leash/testing";

const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] });
const tracer = provider.getTracer("leash-example");

const lookUp = tool({ name: "look_up", effect: "read", execute: () => "invoice 17: 120 EUR to Acme" });
const pay = tool({ name: "pay", effect: "write", execute: () => "paid" });
// A scripted model stands in for a provider, so the example runs without an API key.
const model = scriptedModel(
  { name: "Everyday", price: { input: 1, output: 5, cacheRead: 0.1 } },
  says.tool("look_up", {}, { usage: { inputTokens: 900, outputTokens: 40, cacheReadTokens: 600 } }),
  says.tool("pay", {}, { usage: { inputTokens: 1_000, outputTokens: 30 } }),
  says.handBack("paid 120 EUR to Acme", { usage: { inputTokens: 1_100, outputTokens: 20 } }),
);
const store = new MemoryStore();
const agent = new Agent({
  name: "Payer",
  tools: [lookUp, pay],
  planner: modelPlanner({ model }),
  policy: new Policy({ allowEffects: ["read", "write"] }),
  store,
});

const stopTracing = traceAgent(agent, { tracer, tools: [lookUp, pay] });
const paused = await agent.run("pay invoice 17");
const request = paused.pending;
if (request === undefined) throw new Error("expected the payment to wait for an approval");
const done = await agent.resume(paused.runId, {
  approvals: [new Approval(request.digest, { granted: true, approver: "dana" })],
});
stopTracing();
await provider.shutdown();

const trail = await store.read(done.runId);
console.log(
  `run ${done.status}: ${trail.length} records, ${verifyAudit(trail).length === 0 ? "the chain verifies" : "the chain is broken"}`,
);
if (done.status !== "completed") process.exit(1);
