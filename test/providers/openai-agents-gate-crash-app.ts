// The app of the OpenAI Agents crash test (openai-agents-gate-crash.test.ts), shared by the test and
// its child processes: an `Agent` of `@openai/agents` whose one tool, a write approved per call, goes
// through a gate on a SQLite file. Every start of the write is a line in a file (its idempotency key);
// in a child it prints `started` and, when asked to, never returns (the parent kills it).
import { appendFileSync } from "node:fs";
import { Agent, RunState as AgentsRunState, run, setTracingDisabled } from "@openai/agents";
import { Gate, Policy, tool } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { gateTools } from "../../src/providers/openai-agents/index.js";
import type { GateSession } from "../../src/index.js";
import type { ScriptStep } from "./openai-agents/scripted-agents-model.js";
import { outputsIn, scriptedAgentsModel } from "./openai-agents/scripted-agents-model.js";

setTracingDisabled(true);

export const RUN_ID = "conversation-agents-crash";
export const CALL_ID = "call_write";

/** The gate of the app: `write_row` (idempotent or not) appends its idempotency key to `effects` on each start. */
export function crashApp(database: string, effects: string, idempotent: boolean, block: boolean) {
  const store = new SqliteStore(database);
  const writeRow = tool({
    name: "write_row",
    description: "Write a row.",
    effect: "write",
    idempotent,
    parameters: {
      type: "object",
      properties: { row: { type: "string" } },
      required: ["row"],
      additionalProperties: false,
    },
    execute: async ({ row }, context) => {
      appendFileSync(effects, `${context.idempotencyKey}\n`);
      process.stdout.write("started\n");
      // A timer keeps the process alive: a bare pending promise lets Node exit (code 13) before the kill.
      if (block) await new Promise(() => setInterval(() => undefined, 1_000));
      return `wrote ${row as string}`;
    },
  });
  const gate = new Gate({ tools: [writeRow], policy: new Policy({ allowEffects: ["read", "write"] }), store });
  return { store, gate };
}

/** The app's agent over the session's tools, with a model that answers with `script`. */
export function agentOf(session: GateSession, script: ScriptStep[][]) {
  const model = scriptedAgentsModel(script);
  const agent = new Agent({ name: "Writer", instructions: "Write rows.", model, tools: gateTools(session) });
  return { agent, model };
}

/**
 * Restores the SDK's run state from its text, approves its interruption (leash already holds the
 * person's answer) and runs the SDK's loop on: gives what the model was told of the call.
 */
export async function resumeSaved(gate: Gate, saved: string): Promise<string | undefined> {
  const session = await gate.session(RUN_ID);
  const { agent, model } = agentOf(session, [[{ type: "text", text: "Done." }]]);
  const state = await AgentsRunState.fromString(agent, saved);
  for (const interruption of state.getInterruptions()) state.approve(interruption);
  const result = await run(agent, state);
  if (result.finalOutput !== "Done.") throw new Error(`the run ended with ${String(result.finalOutput)}`);
  const request = model.requests[0];
  return request === undefined ? undefined : outputsIn(request).get(CALL_ID);
}
