import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  connectGateway,
  heldSetup,
  httpTransport,
  leash,
  runs,
  serveHttpGateway,
  setup,
  textOf,
  waitingSignal,
} from "./support.js";

const slowServer = fileURLToPath(new URL("../fixtures/mcp-slow-server.mjs", import.meta.url));

test("one client that cancels its call leaves another client's identical call on the same gateway waiting: it gets the result", async () => {
  const at = await heldSetup({ approvers: ["alice"] }, { approval: { waitMs: 120_000, pollMs: 50 } });
  writeFileSync(at.release, "");
  const gateway = await serveHttpGateway(at);
  const [one, two] = [new Client({ name: "one", version: "1" }), new Client({ name: "two", version: "1" })];
  await one.connect(httpTransport(gateway.port));
  await two.connect(httpTransport(gateway.port));
  try {
    const cancel = new AbortController();
    const [first, second] = [waitingSignal(), waitingSignal()];
    const cancelled = one.callTool({ name: "held__hold", arguments: { n: 1 } }, undefined, {
      signal: cancel.signal,
      timeout: 150_000,
      onprogress: first.onprogress,
    });
    cancelled.catch(() => undefined);
    const runId = await first.waiting;
    const kept = two.callTool({ name: "held__hold", arguments: { n: 1 } }, undefined, {
      timeout: 150_000,
      onprogress: second.onprogress,
    });
    // Both callers get progress: the second is attached to the shared call.
    assert.equal(await second.waiting, runId);
    cancel.abort("the first client gave up");
    await assert.rejects(cancelled);
    const approved = await leash(["approve", runId, "--as", "alice", "--db", at.db], at.dir);
    assert.equal(approved.status, 0, approved.stderr);
    assert.equal(textOf(await kept), "held 1");
    assert.equal(readFileSync(at.count, "utf8"), "hold 1\n");
  } finally {
    await one.close().catch(() => undefined);
    await two.close().catch(() => undefined);
    await gateway.stop();
  }
});

test("a result refused after the tool ran says it ran upstream; a call that timed out says it may have run; both runs end failed", async () => {
  const at = await setup({ waitMs: 120_000 });
  const pidFile = path.join(at.dir, "slow.pid");
  const server = fileURLToPath(import.meta.resolve("@modelcontextprotocol/server-filesystem/dist/index.js"));
  await writeFile(
    at.config,
    JSON.stringify({
      servers: {
        fs: { command: process.execPath, args: [server, at.files] },
        slow: { command: process.execPath, args: [slowServer, pidFile], timeoutMs: 1_000 },
      },
      policy: { grantedScopes: ["mcp:fs", "mcp:slow"], allowEffects: ["read", "write", "external"], approvalFor: [] },
    }),
  );
  // More than the million characters of JSON a result may take.
  const big = path.join(at.files, "big.txt");
  writeFileSync(big, "x".repeat(1_200_000));
  const { client } = await connectGateway(at);
  try {
    const refused = await client.callTool({ name: "fs__read_text_file", arguments: { path: big } });
    assert.equal(refused.isError, true);
    assert.match(
      textOf(refused),
      /^leash: the call ran upstream, but its result was refused: tool_error: .*maxResultSize/,
    );
    const timedOut = await client.callTool({ name: "slow__slow", arguments: {} });
    assert.equal(timedOut.isError, true);
    assert.match(textOf(timedOut), /^leash: the call may have run upstream: .*check before calling it again/);
    assert.doesNotMatch(textOf(timedOut), /did not run/);
    assert.deepEqual(
      (await runs(at)).map((run) => run.status),
      ["failed", "failed"],
    );
  } finally {
    await client.close();
  }
});
