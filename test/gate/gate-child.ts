// A process that makes one call of a gate's session on a SQLite file, for the crash and race tests
// (gate-processes.test.ts). Arguments: database file, effects file, run id, call id, mode, tool.
// Modes: `run` makes the call and prints `answer <json>`; `block` makes the call with a tool that
// prints `started <key>` and then never returns (the parent kills the process); `race` holds its
// first save until the parent writes `go` on stdin, so that two processes save on the same revision.
// The tools append the call's idempotency key to the effects file each time they start.
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { Gate, Policy, tool } from "../../src/index.js";
import type { RunState, SaveOptions } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";

const [file, effects, runId, callId, mode, kind] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
];

const store = new SqliteStore(file);
if (mode === "race") {
  const go = new Promise<void>((resolve) => {
    const lines = createInterface({ input: process.stdin });
    lines.on("line", (line) => {
      if (line !== "go") return;
      // Stdin is let go at once, so that it does not keep the process alive once the call is made.
      lines.close();
      process.stdin.destroy();
      resolve();
    });
  });
  const save = store.save.bind(store);
  let held = false;
  store.save = async (state: RunState, options: SaveOptions): Promise<void> => {
    if (!held) {
      held = true;
      console.log("ready");
      await go;
    }
    return save(state, options);
  };
}

const send = tool({
  name: "send",
  effect: "external",
  idempotent: kind === "idempotent",
  parameters: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
  execute: async ({ to }, context) => {
    appendFileSync(effects, `${context.idempotencyKey}\n`);
    if (mode === "block") {
      console.log(`started ${context.idempotencyKey}`);
      // Kept alive until the parent kills the process mid-call.
      setInterval(() => undefined, 1000);
      await new Promise(() => undefined);
    }
    return `sent to ${to as string}`;
  },
});

const gate = new Gate({
  tools: [send],
  store,
  policy: new Policy({ allowEffects: ["read", "write", "external"], approvalFor: [] }),
});
const session = await gate.session(runId);
const answer = await session.call(callId, "send", { to: "mia" });
console.log(`answer ${JSON.stringify(answer)}`);
await store.close();
