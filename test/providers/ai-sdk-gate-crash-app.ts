// The app of the crash test (ai-sdk-gate-crash.test.ts), shared by the test and its child processes:
// a gate on a SQLite file with one write tool, approved per call, whose every start is a line in a
// file; in a child it prints `started` and, when asked to, never returns (the parent kills it).
import { appendFileSync } from "node:fs";
import type { ModelMessage } from "ai";
import { generateText, stepCountIs, tool as aiTool } from "ai";
import { z } from "zod";
import { Gate, Policy } from "../../src/index.js";
import type { Tool } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { gateTools, leashTool } from "../../src/providers/ai-sdk/index.js";
import { scriptedModel, toolResultsIn } from "./ai-sdk-gate-script.js";

export const RUN_ID = "conversation-crash";
export const CALL_ID = "call_write";

/** The gate of the app: `write_row` (idempotent or not) appends a line to `starts` each time it starts. */
export function crashApp(database: string, starts: string, idempotent: boolean, block: boolean) {
  const store = new SqliteStore(database);
  const writeRow = aiTool({
    description: "Write a row.",
    inputSchema: z.object({ row: z.string() }),
    execute: async ({ row }, options) => {
      appendFileSync(starts, `${options.toolCallId}\n`);
      process.stdout.write("started\n");
      // A timer keeps the process alive: a bare pending promise lets Node exit (code 13) before the kill.
      if (block) await new Promise(() => setInterval(() => undefined, 1_000));
      return `wrote ${row}`;
    },
  });
  const tools = [leashTool(writeRow, { name: "write_row", effect: "write", idempotent })];
  const gate = new Gate({
    tools,
    policy: new Policy({ allowEffects: ["read", "write"] }),
    store,
  });
  return { store, gate, tools };
}

/** Sends the messages through generateText on the gate's tools; gives what the model was told of the call. */
export async function sendAgain(gate: Gate, tools: Tool[], messages: ModelMessage[]): Promise<unknown> {
  const session = await gate.session(RUN_ID);
  const { model, prompts } = scriptedModel({ text: "Done." });
  await generateText({ model, tools: gateTools(session, { tools }), messages, stopWhen: stepCountIs(3) });
  return toolResultsIn(prompts[0])[CALL_ID];
}
