import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { connectGateway, leash, setup, textOf } from "./support.js";

test("a client that gives its own wait in `_meta` (leash/waitMs) hears which run to approve before it gives up; `leash approve` then says the gateway runs it on the same call", async () => {
  // The config's wait is longer than this client waits: without the client's deadline, the client times out first.
  const at = await setup({ waitMs: 600_000 });
  const { client } = await connectGateway(at);
  try {
    const args = { path: path.join(at.files, "out.txt"), content: "x" };
    const ask = () =>
      client.callTool({ name: "fs__write_file", arguments: args, _meta: { "leash/waitMs": 200 } }, undefined, {
        timeout: 30_000,
      });
    let answered = await ask();
    // On a loaded machine the client's 200 ms can end before the gateway has saved the run's pause:
    // it then says the call is being started, and the same call again finds the run that waits.
    for (let tries = 1; /being started/.test(textOf(answered)) && tries < 50; tries += 1) answered = await ask();
    assert.equal(answered.isError, true);
    const runId = /waits for a person's approval in run (\S+)\./.exec(textOf(answered))?.[1];
    assert.ok(runId !== undefined, textOf(answered));
    const approved = await leash(["approve", runId, "--as", "alice", "--db", at.db], at.dir);
    assert.equal(approved.status, 0, approved.stderr);
    assert.match(approved.stdout, /Next: the gateway runs it when the client makes the same call again/);
    assert.doesNotMatch(approved.stdout, /--agent PATH/);
    const shown = await leash(["show", runId, "--db", at.db], at.dir);
    assert.doesNotMatch(shown.stdout, /--agent PATH/);
    const ran = await client.callTool({ name: "fs__write_file", arguments: args }, undefined, { timeout: 30_000 });
    assert.equal(ran.isError, undefined, textOf(ran));
  } finally {
    await client.close();
  }
});
