// The first run: a read tool with a scope, a rule planner, a least-privilege policy and limits.
// Run it with `npm run example` (it builds first) or `npx tsx examples/first-run.ts` after a build.
import { Agent, Decision, Policy, tool, trace, verifyAudit } from "leash";
import type { Planner } from "leash";

const PAGES: Record<string, string> = { spans: "A chunk's text is a slice of its source.", ids: "64 hex digits." };

const lookup = tool({
  name: "lookup",
  description: "Return the page about a topic.",
  parameters: {
    type: "object",
    properties: { topic: { type: "string", enum: Object.keys(PAGES).sort() } },
    required: ["topic"],
    additionalProperties: false,
  },
  scopes: ["docs:read"],
  execute: ({ topic }: { topic: string }) => PAGES[topic] ?? "",
});

const planner: Planner = (state) => {
  if (state.steps.length === 0) return Decision.act("lookup", { topic: "spans" });
  return Decision.finish(state.steps.at(-1)?.result);
};

const agent = new Agent({
  tools: [lookup],
  planner,
  policy: new Policy({ grantedScopes: ["docs:read"] }),
  limits: { maxSteps: 4, maxToolCalls: 2 },
});

const state = await agent.run("what is a chunk's text?");
console.log(`status:  ${state.status}`);
console.log(`answer:  ${JSON.stringify(state.answer)}`);
for (const step of state.steps) {
  const what = step.decision.type === "act" ? `${step.decision.tool}(${JSON.stringify(step.decision.args)})` : "finish";
  console.log(`step ${step.index}: ${what} -> ${step.outcome}`);
}
console.log(`ran:     ${trace(state).ran.join(", ")}`);
const problems = verifyAudit(agent.audit.records);
console.log(`audit:   ${problems.length === 0 ? "the chain verifies" : JSON.stringify(problems)}`);

// Without the scope the run completes too, but the tool never runs.
const denied = await new Agent({ tools: [lookup], planner }).run("what is a chunk's text?");
console.log(`without docs:read: first step ${denied.steps[0]?.outcome}, tool calls ${denied.toolCalls}`);
if (state.status !== "completed" || problems.length > 0 || denied.steps[0]?.outcome !== "scope_denied") process.exit(1);
