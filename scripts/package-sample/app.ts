// The app of the package check (scripts/check-package.mjs): installed from the tarball into a new
// project, typechecked with `strict` and `skipLibCheck: false`, then run. It uses every subpath as an
// app would: a model-driven run (leash/testing) on a SQLite store (leash/sqlite) pauses before a
// write, a person's answer is recorded in the store, a worker (leash/worker) resumes the run, the
// trail verifies, and a checkpoint of the store is signed and checked (leash/evidence reads its log).
// leash/postgres is typechecked only: this project has no `pg` to load.
import assert from "node:assert/strict";
import {
  Agent,
  Approval,
  Policy,
  keygen,
  modelPlanner,
  signCheckpoint,
  tool,
  verifyAudit,
  verifyCheckpoint,
} from "leash";
import { evidenceLogOf, leafHash } from "leash/evidence";
import type { RunState, RunStore } from "leash";
import type { PostgresConnection, PostgresStore, PostgresStoreOptions } from "leash/postgres";
import { SqliteStore } from "leash/sqlite";
import { says, scriptedModel } from "leash/testing";
import { Worker } from "leash/worker";

/** The options an app would give `leash/postgres`; never called here, checked by the compiler. */
export function postgresOptions(url: string): PostgresConnection & PostgresStoreOptions {
  return { connectionString: url, schema: "leash" };
}

/** Any store will do for code written against the port, PostgreSQL's too. */
export function asRunStore(store: PostgresStore | SqliteStore): RunStore {
  return store;
}

const path = process.argv[2];
if (path === undefined) throw new Error("Give the SQLite file as the first argument.");

const notes: string[] = [];
const saveNote = tool({
  name: "save_note",
  description: "Save a note.",
  parameters: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  effect: "write",
  execute: ({ text }: { text: string }) => {
    notes.push(text);
    return "saved";
  },
});
const model = scriptedModel(says.tool("save_note", { text: "Brake pads checked." }), says.text("The note is saved."));
const store = new SqliteStore(path);
const agent = new Agent({
  tools: [saveNote],
  planner: modelPlanner({ model, purpose: "You keep the workshop's notes." }),
  policy: new Policy({ allowEffects: ["read", "write"] }),
  store,
});

const paused: RunState = await agent.run("note that the brake pads were checked", { runId: "note-1" });
assert.equal(paused.status, "awaiting_approval");
assert.deepEqual(notes, [], "nothing is written before a person approves");
console.log("sample: paused");

const [waiting] = await store.list({ status: "awaiting_approval" });
assert.equal(waiting?.runId, "note-1");
await store.answer("note-1", Approval.grant(waiting.pending!.digest, "noor"));
console.log("sample: approved");

const worker = new Worker({ agent, store });
assert.equal(await worker.runOnce(), 1);
const done = await store.load("note-1");
assert.equal(done?.status, "completed");
assert.equal(done.answer, "The note is saved.");
assert.deepEqual(notes, ["Brake pads checked."]);
console.log("sample: resumed");

assert.deepEqual(verifyAudit(store.records), []);
const { signerKey, verifierKey } = keygen("example.com/sample");
const note = await signCheckpoint(store, { key: signerKey, origin: "example.com/sample" });
assert.deepEqual(await verifyCheckpoint(store, note, { key: verifierKey }), []);
assert.equal(typeof evidenceLogOf(store).root, "function");
assert.equal(leafHash(new Uint8Array(32)).length, 32);
model.assertDone();
await store.close();
console.log("sample: verified");
