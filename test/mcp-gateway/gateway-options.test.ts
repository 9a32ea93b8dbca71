import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { connectGateway, leash, setup, textOf, waitingSignal } from "./support.js";

test("an answer from someone the config does not name as an approver decides nothing; the call waits on", async () => {
  const at = await setup({ waitMs: 120_000 });
  const target = path.join(at.files, "out.txt");
  const { client } = await connectGateway(at);
  try {
    const signal = waitingSignal();
    let progressAfterMallory = 0;
    let malloryAnswered = false;
    const call = client.callTool(
      { name: "fs__write_file", arguments: { path: target, content: "alice said yes" } },
      undefined,
      {
        timeout: 150_000,
        onprogress: (progress) => {
          signal.onprogress(progress);
          if (malloryAnswered) progressAfterMallory += 1;
        },
      },
    );
    const runId = await signal.waiting;
    const mallory = await leash(["approve", runId, "--as", "mallory", "--db", at.db], at.dir);
    assert.equal(mallory.status, 0, mallory.stderr);
    malloryAnswered = true;
    // Several polls later the call still waits and nothing is written.
    const end = Date.now() + 60_000;
    while (progressAfterMallory < 5 && Date.now() < end) await new Promise((done) => setTimeout(done, 20));
    assert.ok(progressAfterMallory >= 5);
    await assert.rejects(readFile(target), { code: "ENOENT" });
    const alice = await leash(["approve", runId, "--as", "alice", "--db", at.db], at.dir);
    assert.equal(alice.status, 0, alice.stderr);
    const result = await call;
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(await readFile(target, "utf8"), "alice said yes");
  } finally {
    await client.close();
  }
});

test("guards from the --agent module run on every call: a blocked call is an error result, and never reaches the server", async () => {
  const at = await setup({ waitMs: 120_000 });
  const module = path.join(at.dir, "guards.mjs");
  await writeFile(
    module,
    `export const guards = [{ name: "no-secrets", beforeTool: (work, tool, args) =>
      String(args.path ?? "").includes("secret") ? { type: "block", why: "secrets stay put" } : { type: "allow" } }];\n`,
  );
  await writeFile(path.join(at.files, "secret.txt"), "hidden");
  const { client } = await connectGateway(at, ["--db", at.db, "--agent", module]);
  try {
    const blocked = await client.callTool({
      name: "fs__read_text_file",
      arguments: { path: path.join(at.files, "secret.txt") },
    });
    assert.equal(blocked.isError, true);
    assert.match(textOf(blocked), /blocked/);
    assert.doesNotMatch(textOf(blocked), /hidden/);
  } finally {
    await client.close();
  }
});
