// A child process of ai-sdk-gate-crash.test.ts: sends the saved messages (the approval response
// included) through generateText once, and prints what the model was told of the call.
import { readFileSync } from "node:fs";
import type { ModelMessage } from "ai";
import { crashApp, sendAgain } from "./ai-sdk-gate-crash-app.js";

const [database = "", starts = "", messagesFile = "", idempotent = "", block = ""] = process.argv.slice(2);
const { gate, store, tools } = crashApp(database, starts, idempotent === "idempotent", block === "block");
const messages = JSON.parse(readFileSync(messagesFile, "utf8")) as ModelMessage[];
const told = await sendAgain(gate, tools, messages);
process.stdout.write(`told ${JSON.stringify(told)}\n`);
await store.close();
