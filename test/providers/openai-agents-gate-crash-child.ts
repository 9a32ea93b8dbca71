// A child process of openai-agents-gate-crash.test.ts: restores the SDK's run state saved at the
// interruption, approves it and runs the SDK's loop on once, then prints what the model was told.
import { readFileSync } from "node:fs";
import { crashApp, resumeSaved } from "./openai-agents-gate-crash-app.js";

const [database = "", effects = "", stateFile = "", idempotent = "", block = ""] = process.argv.slice(2);
const { gate, store } = crashApp(database, effects, idempotent === "idempotent", block === "block");
const told = await resumeSaved(gate, readFileSync(stateFile, "utf8"));
process.stdout.write(`told ${JSON.stringify(told)}\n`);
await store.close();
