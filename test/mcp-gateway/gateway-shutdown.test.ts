import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { test } from "node:test";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { eventually, pidIn } from "../mcp/support.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  connectGateway,
  firstRunOnceEnded,
  heldSetup,
  httpTransport,
  leash,
  runs,
  serveHttpGateway,
  setup,
  slowSetup,
  textOf,
  waitingSignal,
} from "./support.js";

const CALL_TIMEOUT = { timeout: 150_000 };

/** The gateway's child process and how it ends: its exit code, and the first stderr line that matches. */
function watch(transport: StdioClientTransport): {
  exit: Promise<number | null>;
  line: (pattern: RegExp) => Promise<string>;
  endStdin: () => void;
} {
  // The SDK keeps the child private and forgets it once it closes: hold it from the start.
  const child = (transport as unknown as { _process: ChildProcess })._process;
  const exit = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
  let text = "";
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const stderr = transport.stderr as Readable;
  stderr.setEncoding("utf8");
  stderr.on("data", (chunk: string) => {
    text += chunk;
    for (const waiter of [...waiters]) {
      const found = text.split("\n").find((line) => waiter.pattern.test(line));
      if (found !== undefined) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(found);
      }
    }
  });
  const line = (pattern: RegExp): Promise<string> => {
    const found = text.split("\n").find((each) => pattern.test(each));
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => waiters.push({ pattern, resolve }));
  };
  return { exit, line, endStdin: () => child.stdin?.end() };
}

test("SIGTERM with a call in flight: new calls are refused, the call finishes, the client gets its result, the run is completed, the tool ran once, exit 0", async () => {
  // A bound far past the test's own steps: the call ends because it is released, not cut.
  const at = await heldSetup({ approvalFor: [] }, { shutdownMs: 120_000 });
  const { client, transport } = await connectGateway(at);
  const gateway = watch(transport);
  const call = client.callTool({ name: "held__hold", arguments: { n: 1 } }, undefined, CALL_TIMEOUT);
  await eventually(() => existsSync(at.count), "the upstream call to start", 60_000);
  process.kill(transport.pid!, "SIGTERM");
  await gateway.line(/stopping \(SIGTERM\)/);
  const refused = await client.callTool({ name: "held__hold", arguments: { n: 2 } }, undefined, CALL_TIMEOUT);
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /shutting down/);
  await writeFile(at.release, "");
  const result = await call;
  assert.equal(result.isError, undefined);
  assert.equal(textOf(result), "held 1");
  assert.equal(await gateway.exit, 0);
  await client.close();
  assert.equal(readFileSync(at.count, "utf8"), "hold 1\n");
  const listed = await runs(at);
  assert.deepEqual(
    listed.map((item) => item.status),
    ["completed"],
  );
  const verified = await leash(["verify", "--db", at.db], at.dir);
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
});

test("SIGTERM with a call waiting for approval: the client gets the waiting error at once, the run stays awaiting_approval, and the same call after the approval runs once", async () => {
  const at = await setup({ waitMs: 120_000 });
  const target = path.join(at.files, "out.txt");
  const args = { path: target, content: "written once" };
  const first = await connectGateway(at);
  const gateway = watch(first.transport);
  const signal = waitingSignal();
  const call = first.client.callTool({ name: "fs__write_file", arguments: args }, undefined, {
    ...CALL_TIMEOUT,
    onprogress: signal.onprogress,
  });
  const runId = await signal.waiting;
  process.kill(first.transport.pid!, "SIGTERM");
  // Far sooner than waitMs (two minutes) and the client's own timeout: the stop answers it.
  const answered = await call;
  assert.equal(answered.isError, true);
  assert.match(textOf(answered), new RegExp(`waits for a person's approval in run ${runId}`));
  assert.equal(await gateway.exit, 0);
  await first.client.close();
  const waiting = await runs(at);
  assert.deepEqual(
    waiting.map((item) => [item.runId, item.status]),
    [[runId, "awaiting_approval"]],
  );
  await assert.rejects(readFile(target), { code: "ENOENT" });

  const approved = await leash(["approve", runId, "--as", "alice", "--db", at.db], at.dir);
  assert.equal(approved.status, 0, approved.stderr);
  const second = await connectGateway(at);
  try {
    const result = await second.client.callTool({ name: "fs__write_file", arguments: args }, undefined, CALL_TIMEOUT);
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(await readFile(target, "utf8"), "written once");
  } finally {
    await second.client.close();
  }
  const after = await runs(at);
  assert.equal(after.length, 1);
  assert.equal(after[0]?.status, "completed");
});

test("SIGTERM with a call that outlasts shutdownMs: the gateway exits anyway (code 1), and the next start recovers the run, never running it twice", async () => {
  const at = await slowSetup({ shutdownMs: 500 });
  const { pidFile } = at;
  const first = await connectGateway(at);
  const gateway = watch(first.transport);
  const call = first.client.callTool({ name: "slow__slow", arguments: {} }, undefined, CALL_TIMEOUT);
  call.catch(() => undefined);
  await eventually(() => existsSync(pidFile), "the upstream call to start", 60_000);
  process.kill(first.transport.pid!, "SIGTERM");
  assert.match(await gateway.line(/still in flight after shutdownMs/), /1 call\(s\)/);
  assert.equal(await gateway.exit, 1);
  await assert.rejects(call);
  await first.client.close();
  const upstream = await pidIn(pidFile);
  // The upstream server's stdin closed with the gateway: it ends (a supervisor would end it otherwise).
  try {
    process.kill(upstream, "SIGKILL");
  } catch {
    // Already gone.
  }
  const [cut] = await runs(at);
  assert.equal(cut?.status, "running");

  const second = await connectGateway(at);
  try {
    const after = await firstRunOnceEnded(at);
    // An interrupted or failed call ends its run `failed`, so `leash runs` tells it from a success.
    assert.equal(after?.status, "failed");
    const shown = JSON.parse((await leash(["show", cut.runId, "--db", at.db, "--json"], at.dir)).stdout) as {
      state: { steps: { outcome: string; starts?: number }[] };
    };
    assert.equal(shown.state.steps[0]?.outcome, "interrupted");
    assert.equal(shown.state.steps[0]?.starts, 1);
  } finally {
    await second.client.close();
  }
});

test("stdin's end with a call in flight (the client went away): the call finishes, its run is completed, the tool ran once, exit 0", async () => {
  const at = await heldSetup({ approvalFor: [] }, { shutdownMs: 120_000 });
  const { client, transport } = await connectGateway(at);
  const gateway = watch(transport);
  const call = client.callTool({ name: "held__hold", arguments: { n: 1 } }, undefined, CALL_TIMEOUT);
  call.catch(() => undefined);
  await eventually(() => existsSync(at.count), "the upstream call to start", 60_000);
  gateway.endStdin();
  await gateway.line(/stopping \(stdin ended\)/);
  await writeFile(at.release, "");
  assert.equal(await gateway.exit, 0);
  await client.close();
  assert.equal(readFileSync(at.count, "utf8"), "hold 1\n");
  assert.deepEqual(
    (await runs(at)).map((item) => item.status),
    ["completed"],
  );
});

test("over --http, SIGTERM with a call in flight: the session gets the call's result before the gateway closes it, exit 0", async () => {
  const at = await heldSetup({ approvalFor: [] }, { shutdownMs: 120_000 });
  const gateway = await serveHttpGateway(at);
  const client = new Client({ name: "http-test", version: "1" });
  await client.connect(httpTransport(gateway.port));
  try {
    const call = client.callTool({ name: "held__hold", arguments: { n: 1 } }, undefined, CALL_TIMEOUT);
    await eventually(() => existsSync(at.count), "the upstream call to start", 60_000);
    const stopped = gateway.stop();
    await gateway.line(/stopping \(SIGTERM\)/);
    const refused = await client.callTool({ name: "held__hold", arguments: { n: 2 } }, undefined, CALL_TIMEOUT);
    assert.match(textOf(refused), /shutting down/);
    await writeFile(at.release, "");
    assert.equal(textOf(await call), "held 1");
    await stopped;
  } finally {
    await client.close().catch(() => undefined);
  }
  assert.equal(await gateway.exit, 0);
  assert.equal(readFileSync(at.count, "utf8"), "hold 1\n");
  assert.deepEqual(
    (await runs(at)).map((item) => item.status),
    ["completed"],
  );
});
