import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { pidIn } from "../mcp/support.js";
import { connectGateway, firstRunOnceEnded, leash, runs, setup, slowSetup } from "./support.js";

const slowServer = fileURLToPath(new URL("../fixtures/mcp-slow-server.mjs", import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("a gateway killed while a call of a non-idempotent tool is in flight: at restart the call is interrupted, never run twice", async () => {
  const at = await slowSetup();
  const { pidFile } = at;
  const first = await connectGateway(at);
  const call = first.client.callTool({ name: "slow__slow", arguments: {} }, undefined, { timeout: 150_000 });
  call.catch(() => undefined);
  const upstream = await pidIn(pidFile);
  process.kill(first.transport.pid!, "SIGKILL");
  await assert.rejects(call);
  // The killed gateway's upstream server is an orphan now: end it, as a supervisor would.
  if (alive(upstream)) process.kill(upstream, "SIGKILL");
  const [cut] = await runs(at);
  assert.equal(cut?.status, "running");

  const second = await connectGateway(at);
  try {
    // The restarted gateway recovers the run in the background: wait until it has ended.
    const after = await firstRunOnceEnded(at);
    assert.equal(after?.runId, cut.runId);
    // An interrupted or failed call ends its run `failed`, so `leash runs` tells it from a success.
    assert.equal(after?.status, "failed");
    const shown = JSON.parse((await leash(["show", cut.runId, "--db", at.db, "--json"], at.dir)).stdout) as {
      state: { steps: { outcome: string; starts?: number }[] };
    };
    assert.equal(shown.state.steps[0]?.outcome, "interrupted");
    assert.equal(shown.state.steps[0]?.starts, 1);
    // The call was not started again: the pid file still names the first server.
    assert.equal(Number(readFileSync(pidFile, "utf8")), upstream);
  } finally {
    await second.client.close();
  }
  const verified = await leash(["verify", "--db", at.db], at.dir);
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
});

test("a gateway killed while a call of an idempotent tool is in flight: at restart the call starts again, once", async () => {
  const at = await setup({ waitMs: 120_000 });
  const pidFile = path.join(at.dir, "slow.pid");
  await writeFile(
    at.config,
    JSON.stringify({
      servers: {
        slow: {
          command: process.execPath,
          args: [slowServer, pidFile],
          overrides: { slow: { idempotent: true } },
          timeoutMs: 3_000,
        },
      },
      policy: { grantedScopes: ["mcp:slow"], allowEffects: ["read", "write", "external"], approvalFor: [] },
    }),
  );
  const first = await connectGateway(at);
  const call = first.client.callTool({ name: "slow__slow", arguments: {} }, undefined, { timeout: 150_000 });
  call.catch(() => undefined);
  const upstream = await pidIn(pidFile);
  process.kill(first.transport.pid!, "SIGKILL");
  await assert.rejects(call);
  if (alive(upstream)) process.kill(upstream, "SIGKILL");

  const second = await connectGateway(at);
  try {
    const after = await firstRunOnceEnded(at);
    // An interrupted or failed call ends its run `failed`, so `leash runs` tells it from a success.
    assert.equal(after?.status, "failed");
    const shown = JSON.parse((await leash(["show", after.runId, "--db", at.db, "--json"], at.dir)).stdout) as {
      state: { steps: { outcome: string; starts?: number; error?: { code: string } }[] };
    };
    // Started again on the restarted upstream (which never answers, so the call timed out there).
    assert.equal(shown.state.steps[0]?.starts, 2);
    assert.notEqual(await pidIn(pidFile), upstream);
    assert.equal(shown.state.steps[0]?.outcome, "tool_error");
  } finally {
    await second.client.close();
  }
});
