import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { connectGateway, leash, runs, setup, textOf, waitingSignal } from "./support.js";

const LONG_WAIT = 120_000;
const CALL_TIMEOUT = { timeout: 150_000 };

test("the gateway lists the upstream tools with their schemas, and a read runs at once, its result passed on, recorded in the store", async () => {
  const at = await setup({ waitMs: LONG_WAIT });
  await writeFile(path.join(at.files, "note.txt"), "hello from upstream");
  const { client } = await connectGateway(at);
  try {
    const { tools } = await client.listTools();
    const read = tools.find((item) => item.name === "fs__read_text_file");
    assert.ok(read, tools.map((item) => item.name).join(", "));
    assert.equal((read.inputSchema.properties as Record<string, unknown>).path !== undefined, true);
    assert.ok(tools.some((item) => item.name === "fs__write_file"));
    assert.equal(read.annotations?.readOnlyHint, true);
    assert.equal(typeof read.description, "string");
    const result = await client.callTool({
      name: "fs__read_text_file",
      arguments: { path: path.join(at.files, "note.txt") },
    });
    assert.equal(result.isError, undefined);
    // The server's own result, passed on: its text as it sent it, and its structuredContent.
    assert.deepEqual(result, {
      content: [{ type: "text", text: "hello from upstream" }],
      structuredContent: { content: "hello from upstream" },
    });
  } finally {
    await client.close();
  }
  const listed = await runs(at);
  assert.equal(listed.length, 1);
  assert.equal(listed[0]?.status, "completed");
  const shown = await leash(["show", listed[0].runId, "--db", at.db], at.dir);
  assert.equal(shown.status, 0, shown.stderr);
  assert.match(shown.stdout, /fs__read_text_file/);
  const verified = await leash(["verify", "--db", at.db], at.dir);
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
});

test("a write waits for approval, is approved by `leash approve` in another process, and runs once", async () => {
  const at = await setup({ waitMs: LONG_WAIT });
  const target = path.join(at.files, "out.txt");
  const { client } = await connectGateway(at);
  try {
    const signal = waitingSignal();
    const call = client.callTool(
      { name: "fs__write_file", arguments: { path: target, content: "written once" } },
      undefined,
      {
        ...CALL_TIMEOUT,
        onprogress: signal.onprogress,
      },
    );
    const runId = await signal.waiting;
    await assert.rejects(readFile(target), { code: "ENOENT" });
    assert.deepEqual(
      (await runs(at)).map((run) => [run.runId, run.status]),
      [[runId, "awaiting_approval"]],
    );
    const approved = await leash(["approve", runId, "--as", "alice", "--db", at.db], at.dir);
    assert.equal(approved.status, 0, approved.stderr);
    const result = await call;
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(await readFile(target, "utf8"), "written once");
    const shown = JSON.parse((await leash(["show", runId, "--db", at.db, "--json"], at.dir)).stdout) as {
      state: { status: string; toolCalls: number; steps: { outcome: string; starts?: number }[] };
    };
    assert.equal(shown.state.status, "completed");
    assert.equal(shown.state.toolCalls, 1);
    assert.equal(shown.state.steps[0]?.outcome, "executed");
  } finally {
    await client.close();
  }
});

test("a denial from `leash deny` is an error result with the reason, and nothing is written", async () => {
  const at = await setup({ waitMs: LONG_WAIT });
  const target = path.join(at.files, "out.txt");
  const { client } = await connectGateway(at);
  try {
    const signal = waitingSignal();
    const call = client.callTool({ name: "fs__write_file", arguments: { path: target, content: "no" } }, undefined, {
      ...CALL_TIMEOUT,
      onprogress: signal.onprogress,
    });
    const runId = await signal.waiting;
    const denied = await leash(["deny", runId, "--as", "alice", "--note", "not this file", "--db", at.db], at.dir);
    assert.equal(denied.status, 0, denied.stderr);
    const result = await call;
    assert.equal(result.isError, true);
    assert.match(textOf(result), /denied by alice: not this file/);
    await assert.rejects(readFile(target), { code: "ENOENT" });
  } finally {
    await client.close();
  }
});

test("past the wait, the call answers an error naming the run to approve; the same call after the approval runs it once", async () => {
  const at = await setup({ waitMs: 1_000 });
  const target = path.join(at.files, "later.txt");
  const args = { path: target, content: "after approval" };
  const { client } = await connectGateway(at);
  try {
    const first = await client.callTool({ name: "fs__write_file", arguments: args });
    assert.equal(first.isError, true);
    const runId = /leash approve (\S+)/.exec(textOf(first))?.[1];
    assert.ok(runId, textOf(first));
    assert.match(textOf(first), /waits for a person's approval/);
    const approved = await leash(["approve", runId, "--as", "alice", "--db", at.db], at.dir);
    assert.equal(approved.status, 0, approved.stderr);
    const again = await client.callTool({ name: "fs__write_file", arguments: args });
    assert.equal(again.isError, undefined, textOf(again));
    assert.equal(await readFile(target, "utf8"), "after approval");
    const listed = await runs(at);
    assert.deepEqual(
      listed.map((run) => [run.runId, run.status]),
      [[runId, "completed"]],
    );
  } finally {
    await client.close();
  }
});

test("a gateway killed (SIGKILL) during the wait loses nothing: restarted, the approved call runs once", async () => {
  const at = await setup({ waitMs: LONG_WAIT });
  const target = path.join(at.files, "crash.txt");
  const args = { path: target, content: "survived" };
  const first = await connectGateway(at);
  const signal = waitingSignal();
  const call = first.client.callTool({ name: "fs__write_file", arguments: args }, undefined, {
    ...CALL_TIMEOUT,
    onprogress: signal.onprogress,
  });
  const runId = await signal.waiting;
  const closed = new Promise<void>((done) => (first.client.onclose = done));
  process.kill(first.transport.pid!, "SIGKILL");
  await assert.rejects(call);
  await closed;
  assert.deepEqual(
    (await runs(at)).map((run) => [run.runId, run.status]),
    [[runId, "awaiting_approval"]],
  );
  const approved = await leash(["approve", runId, "--as", "alice", "--db", at.db], at.dir);
  assert.equal(approved.status, 0, approved.stderr);
  const second = await connectGateway(at);
  try {
    const result = await second.client.callTool({ name: "fs__write_file", arguments: args });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(await readFile(target, "utf8"), "survived");
    assert.deepEqual(
      (await runs(at)).map((run) => [run.runId, run.status]),
      [[runId, "completed"]],
    );
  } finally {
    await second.client.close();
  }
  const verified = await leash(["verify", "--db", at.db], at.dir);
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
});

test("a bad config file is refused with exit 2 and a message that says what to fix", async () => {
  const at = await setup({ waitMs: LONG_WAIT });
  await writeFile(at.config, JSON.stringify({ servers: { fs: { args: ["x"] } } }));
  const bad = await leash(["mcp", "serve", "--config", at.config, "--db", at.db], at.dir);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /servers\.fs needs either `command` \(stdio\) or `url`/);
  assert.match(bad.stderr, /\(invalid_config\)/);
  await writeFile(at.config, "{ not json");
  const notJson = await leash(["mcp", "serve", "--config", at.config, "--db", at.db], at.dir);
  assert.equal(notJson.status, 2);
  assert.match(notJson.stderr, /is not JSON/);
  const missing = await leash(["mcp", "serve", "--config", path.join(at.dir, "nope.json")], at.dir);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /Could not read the gateway config/);
});
