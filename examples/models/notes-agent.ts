// The agent every model example drives: a read tool, a write tool that waits for a person's approval,
// and a model behind `modelPlanner`. The examples differ only in the adapter that reaches the model.
import { Agent, Approval, MemoryStore, Policy, modelPlanner, tool, verifyAudit } from "leash";
import type { ModelClient, RunState } from "leash";

/** The task every example gives its model. */
export const TASK =
  "Read my notes with read_notes, then save one note titled 'summary' that sums them up in one sentence " +
  "with save_note. Then answer in one short sentence.";

/** What the examples ask the model to do, and the tools it may use. */
function notesAgent(model: ModelClient, saved: { title: string; text: string }[], store: MemoryStore): Agent {
  const readNotes = tool({
    name: "read_notes",
    description: "Read every note of the user.",
    execute: () => [
      { title: "monday", text: "Called the bike shop: the brake pads arrive on Thursday." },
      { title: "tuesday", text: "Paid the shop 40 euros in advance for the pads." },
    ],
  });
  const saveNote = tool({
    name: "save_note",
    description: "Save a note with a title and a text.",
    parameters: {
      type: "object",
      properties: { title: { type: "string" }, text: { type: "string" } },
      required: ["title", "text"],
      additionalProperties: false,
    },
    effect: "write",
    execute: ({ title, text }: { title: string; text: string }) => {
      saved.push({ title, text });
      return "saved";
    },
  });
  return new Agent({
    tools: [readNotes, saveNote],
    planner: modelPlanner({ model, purpose: "You keep the user's notes. Use the tools; be brief." }),
    // A write needs a person's approval: the run pauses until it is given.
    policy: new Policy({ allowEffects: ["read", "write"] }),
    limits: { maxSteps: 10, maxCost: 0.05, maxTokens: 60_000 },
    store,
  });
}

/**
 * Says, in one line, that the example cannot run without `key`, and returns false; true when it is set.
 */
export function keyIsSet(key: string, example: string): boolean {
  if ((process.env[key] ?? "") !== "") return true;
  console.log(`${key} is not set: the ${example} example needs it to call the real provider, so it did nothing.`);
  return false;
}

function describeStep(state: RunState, index: number): string {
  const step = state.steps[index];
  if (step === undefined) return "";
  const { decision } = step;
  const what =
    decision.type === "act"
      ? `${decision.tool}(${JSON.stringify(decision.args)})`
      : `finish ${JSON.stringify(decision.answer)}`;
  return `step ${index}: ${what} -> ${step.outcome}`;
}

/**
 * Runs the notes task on the model: streams its text to stdout, approves the write when the run pauses
 * (as a person would, here in code), then prints the steps, the model calls, the usage and the cost.
 * Exits 1 when the run did not complete or the trail does not verify.
 */
export async function runNotesAgent(model: ModelClient): Promise<void> {
  const saved: { title: string; text: string }[] = [];
  const store = new MemoryStore();
  const agent = notesAgent(model, saved, store);
  const records: { event: string; usage?: unknown }[] = [];
  // Streamed text is written as it comes; a line of our own starts on a fresh line.
  let midLine = false;
  const say = (line: string): void => {
    console.log(`${midLine ? "\n" : ""}${line}`);
    midLine = false;
  };
  agent.on("text", ({ delta }) => {
    process.stdout.write(delta);
    midLine = !delta.endsWith("\n");
  });
  agent.on("record", (record) => {
    if (record.event !== "model_called") return;
    const { usage } = record.data as { usage: { inputTokens: number; outputTokens: number; cost: number } };
    records.push({ event: record.event, usage });
    say(`[model ${model.name}: ${usage.inputTokens} in, ${usage.outputTokens} out, cost ${usage.cost.toFixed(6)}]`);
  });

  console.log(`task: ${TASK}`);
  let state = await agent.run(TASK);
  while (state.status === "awaiting_approval" && state.pending?.kind === "call") {
    const { tool: name, args, digest } = state.pending;
    say(`approval asked: ${name}(${JSON.stringify(args)}); granted by this example`);
    const approval = new Approval(digest, { granted: true, approver: "example@notes.test" });
    state = await agent.resume(state.runId, { approvals: [approval] });
  }

  say(
    `status: ${state.status}${state.failure === undefined ? "" : ` (${state.failure.code}: ${state.failure.message})`}`,
  );
  for (let index = 0; index < state.steps.length; index++) console.log(describeStep(state, index));
  console.log(`answer: ${JSON.stringify(state.answer)}`);
  console.log(`saved: ${JSON.stringify(saved)}`);
  console.log(`model calls: ${records.length}; tokens: ${state.usage.tokens}; cost: ${state.usage.cost.toFixed(6)}`);
  const problems = verifyAudit(store.records);
  console.log(`audit: ${problems.length === 0 ? "the chain verifies" : JSON.stringify(problems)}`);
  if (state.status !== "completed" || problems.length > 0) process.exitCode = 1;
}
