// Approval, pause and resume: a write tool pauses the run; a person's approval, bound to the digest
// of the exact action and history, lets it run once.
import { Agent, Approval, Decision, MemoryStore, Policy, isLeashError, tool, verifyAudit } from "leash";
import type { Planner } from "leash";

const written: string[] = [];
const save = tool({
  name: "save",
  description: "Save a text.",
  parameters: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  effect: "write",
  execute: ({ text }: { text: string }) => {
    written.push(text);
    return "saved";
  },
});

const writer: Planner = (state) => {
  if (state.steps.length === 0) return Decision.act("save", { text: "the report" });
  return Decision.finish(state.steps.at(-1)?.outcome);
};

const store = new MemoryStore();
const agent = new Agent({
  tools: [save],
  planner: writer,
  policy: new Policy({ allowEffects: ["read", "write"] }),
  store,
});

const paused = await agent.run("save the report");
const request = paused.pending;
if (request?.kind !== "call") throw new Error("expected the run to pause for a call");
console.log(`status:  ${paused.status}; written so far: ${JSON.stringify(written)}`);
console.log(
  `asks:    ${request.tool}(${JSON.stringify(request.args)}), effect ${request.effect}, digest ${request.digest.slice(0, 16)}…`,
);

const approval = new Approval(request.digest, { granted: true, approver: "allen" });
const done = await agent.resume(paused.runId, { approvals: [approval] });
console.log(`resumed: ${done.status}, answer ${JSON.stringify(done.answer)}; written: ${JSON.stringify(written)}`);

try {
  await agent.resume(paused.runId, { approvals: [approval] });
} catch (error) {
  if (!isLeashError(error)) throw error;
  console.log(`again:   refused with ${error.code}: an approval runs its action once`);
}
const problems = verifyAudit(store.records);
console.log(
  `audit:   ${store.records.length} records, ${problems.length === 0 ? "the chain verifies" : JSON.stringify(problems)}`,
);
if (done.answer !== "executed" || written.length !== 1 || problems.length > 0) process.exit(1);
