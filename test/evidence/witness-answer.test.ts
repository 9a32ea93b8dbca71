// What a witness answers is checked before it goes on a note: only cosignatures of the checkpoint
// submitted, by the witness's key when one is given; a witness that answers none refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { isLeashError } from "../../src/index.js";
import { cosignerKeygen, evidenceLogOf, verifyCosignature } from "../../src/evidence/index.js";
import type { EvidenceLogOwner } from "../../src/evidence/index.js";
import { submitToWitness } from "../../src/witness/index.js";
import { eachStore } from "../cli/cli-stores.js";
import { errorLine, leash } from "../cli/cli-helpers.js";
import { nodeArguments } from "../helpers/node-child.js";
import { makeKeys, runInto } from "../cli/evidence-helpers.js";
import { TestLog } from "./witness-support.js";

const ORIGIN = "example.com/leash";
const witnessKeys = cosignerKeygen("witness.example/w1");
const script = fileURLToPath(new URL("./hostile-witness.ts", import.meta.url));

/** Starts the hostile witness in its own process, stopped after the test; returns its URL. */
async function hostile(t: { after: (fn: () => Promise<void>) => void }, mode: string): Promise<string> {
  const child = spawn(process.execPath, [...nodeArguments(script), mode], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, HOSTILE_WITNESS_KEY: witnessKeys.signerKey },
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  });
  for await (const line of createInterface({ input: child.stdout })) {
    const url = /^listening on (\S+)$/.exec(line)?.[1];
    if (url !== undefined) return url;
  }
  throw new Error("the hostile witness did not start");
}

const refused = (error: unknown): boolean => isLeashError(error, "witness_refused") && error.details.status === 200;

test("submitToWitness keeps only the cosignature of this checkpoint by the witness's key, and refuses an answer with none", async (t) => {
  const log = new TestLog().grow(4);
  const note = log.checkpoint();
  const submission = { note, oldSize: 0, proof: [], witnessKeys: [witnessKeys.verifierKey] };
  const mixed = await hostile(t, "mixed");
  const lines = await submitToWitness(mixed, submission);
  assert.equal(lines.length, 1);
  verifyCosignature(`${note}${lines[0]}\n`, witnessKeys.verifierKey);
  await assert.rejects(submitToWitness(await hostile(t, "stale"), submission), refused);
  await assert.rejects(submitToWitness(await hostile(t, "own"), submission), refused);
});

test("without the witness's key, submitToWitness drops a line under the log's own key and refuses an answer with nothing else", async (t) => {
  const log = new TestLog().grow(4);
  const note = log.checkpoint();
  const own = await hostile(t, "own");
  await assert.rejects(submitToWitness(own, { note, oldSize: 0, proof: [] }), refused);
  const lines = await submitToWitness(await hostile(t, "mixed"), { note, oldSize: 0, proof: [] });
  assert.equal(lines.length, 2, "the stale and the valid cosignature parse; the log's own name is dropped");
  assert.ok(lines.every((line) => line.startsWith("\u2014 witness.example/w1 ")));
});

eachStore(
  "checkpoint --witness refuses (exit 1) a witness answering a line under the log's key, keeps only the witness's valid cosignature with URL=KEY, and says when it was not verified",
  async (t, target) => {
    await runInto(target.store, [1]);
    const { keyFile } = makeKeys(target.cwd);
    const base = ["checkpoint", ...target.args, "--key-file", keyFile, "--origin", ORIGIN];
    const log = evidenceLogOf(target.store as unknown as EvidenceLogOwner);

    const own = leash([...base, "--witness", await hostile(t, "own")], { cwd: target.cwd });
    assert.equal(own.status, 1, own.stderr);
    assert.equal(errorLine(own).code, "witness_refused");
    const kept = await log.latestCheckpoint();
    assert.equal(kept!.note.split("\n\n")[1]!.split("\n").filter(Boolean).length, 1, kept!.note);

    const mixed = await hostile(t, "mixed");
    const keyed = leash([...base, "--witness", `${mixed}=${witnessKeys.verifierKey}`, "--json"], { cwd: target.cwd });
    assert.equal(keyed.status, 0, keyed.stderr);
    const { note, witnesses } = JSON.parse(keyed.stdout) as { note: string; witnesses: { verified: boolean }[] };
    assert.deepEqual(
      witnesses.map(({ verified }) => verified),
      [true],
    );
    assert.equal(note.split("\n\n")[1]!.split("\n").filter(Boolean).length, 2, note);
    verifyCosignature(note, witnessKeys.verifierKey);

    const shared = leash([...base, "--witness", mixed, "--witness-key", witnessKeys.verifierKey], { cwd: target.cwd });
    assert.equal(shared.status, 0, shared.stderr);
    assert.match(shared.stderr, /verifies with its key/);
    const unkeyed = leash([...base, "--witness", mixed], { cwd: target.cwd });
    assert.equal(unkeyed.status, 0, unkeyed.stderr);
    assert.match(unkeyed.stderr, /NOT verified/);
  },
);
