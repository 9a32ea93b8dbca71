import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, MemoryStore, Policy } from "../../src/index.js";
import type { RunState, Tool } from "../../src/index.js";
import type { Json } from "../../src/json/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import type { McpToolsChange } from "../../src/mcp/index.js";
import { callsPlanner, pidIn, referenceServer, tempFolder } from "./support.js";

const crashy = fileURLToPath(new URL("../fixtures/mcp-crashy-server.mjs", import.meta.url));
const httpServer = fileURLToPath(new URL("../fixtures/mcp-http-server.mjs", import.meta.url));

/** Runs the calls in turn in one run, every effect allowed. */
function run(tools: Tool[], scope: string, calls: [string, Json][]): Promise<RunState> {
  const agent = new Agent({
    tools,
    planner: callsPlanner(calls),
    policy: new Policy({ grantedScopes: [scope], allowEffects: ["read", "write", "external"], approvalFor: [] }),
    store: new MemoryStore(),
  });
  return agent.run("calls");
}

const outcomes = (state: RunState) =>
  state.steps.filter((step) => step.outcome !== "finished").map((step) => [step.outcome, step.error?.code]);

test("a stdio server killed during a call: that call fails at once, the next one reconnects; while it cannot start, calls are mcp_unavailable", async () => {
  const dir = await tempFolder();
  const pidFile = path.join(dir, "pid");
  const gate = path.join(dir, "gate");
  const changes: McpToolsChange[] = [];
  // A timeout far longer than the test: the call cut by the kill must not wait for it.
  const set = await mcpTools(
    { command: process.execPath, args: [crashy, pidFile, gate] },
    { server: "c", timeoutMs: 600_000, onChange: (change) => changes.push(change) },
  );
  try {
    const first = run(set.tools, "mcp:c", [
      ["c__slow", {}],
      ["c__pid", {}],
    ]);
    const pid = await pidIn(pidFile);
    process.kill(pid, "SIGKILL");
    const state = await first;
    assert.deepEqual(outcomes(state), [
      ["tool_error", "mcp_failed"],
      ["executed", undefined],
    ]);
    assert.match(state.steps[0]!.error!.message, /lost its connection/);
    assert.match(state.answer as string, /^\d+$/);
    assert.notEqual(state.answer, String(pid));

    // Lost again, and the command cannot start now: calls fail at once, with a message that says so.
    await rm(pidFile);
    await writeFile(gate, "");
    const second = run(set.tools, "mcp:c", [
      ["c__slow", {}],
      ["c__pid", {}],
      ["c__pid", {}],
    ]);
    process.kill(await pidIn(pidFile), "SIGKILL");
    const cut = await second;
    assert.deepEqual(outcomes(cut), [
      ["tool_error", "mcp_failed"],
      ["tool_error", "mcp_unavailable"],
      ["tool_error", "mcp_unavailable"],
    ]);
    assert.match(cut.steps[1]!.error!.message, /could not be reached again/);
    // Back: a later call (after the backoff) reaches it again.
    await rm(gate);
    for (;;) {
      const again = await run(set.tools, "mcp:c", [["c__pid", {}]]);
      if (again.steps[0]?.outcome === "executed") break;
      assert.equal(again.steps[0]?.error?.code, "mcp_unavailable");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(changes, []);
  } finally {
    await set.close();
  }
});

test("one result over the SDK's 10 MiB stdio cap from server-filesystem fails that call at once; the next call reconnects", async () => {
  const dir = await tempFolder();
  await writeFile(path.join(dir, "big.txt"), "q".repeat(11 * 1024 * 1024));
  await writeFile(path.join(dir, "a.txt"), "hi");
  const fs = await mcpTools(referenceServer("server-filesystem", [dir]), {
    server: "fs",
    trust: "trusted",
    timeoutMs: 600_000,
  });
  try {
    const state = await run(fs.tools, "mcp:fs", [
      ["fs__read_text_file", { path: path.join(dir, "big.txt") }],
      ["fs__read_text_file", { path: path.join(dir, "a.txt") }],
    ]);
    assert.deepEqual(outcomes(state), [
      ["tool_error", "mcp_failed"],
      ["executed", undefined],
    ]);
    assert.match(state.steps[0]!.error!.message, /lost its connection.*ReadBuffer exceeded/);
    assert.deepEqual(state.answer, { content: "hi" });
  } finally {
    await fs.close();
  }
});

/** Starts the HTTP fixture on `port` (0: any); resolves with the child and its port. */
async function startHttp(port: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [httpServer, String(port)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8");
  for await (const chunk of child.stdout) {
    out += chunk as string;
    const found = /port (\d+)/.exec(out);
    if (found) return { child, port: Number(found[1]) };
  }
  throw new Error("The HTTP server ended before it listened.");
}

test("an HTTP upstream that restarted (its session gone): one call fails as mcp_failed, the next opens a new session", async () => {
  let up = await startHttp(0);
  const set = await mcpTools({ url: `http://127.0.0.1:${up.port}/mcp` }, { server: "u", timeoutMs: 600_000 });
  try {
    const before = await run(set.tools, "mcp:u", [["u__ping", {}]]);
    assert.deepEqual(outcomes(before), [["executed", undefined]]);
    up.child.kill("SIGKILL");
    await once(up.child, "exit");
    up = await startHttp(up.port);
    const after = await run(set.tools, "mcp:u", [
      ["u__ping", {}],
      ["u__ping", {}],
    ]);
    assert.deepEqual(outcomes(after), [
      ["tool_error", "mcp_failed"],
      ["executed", undefined],
    ]);
    assert.match(after.steps[0]!.error!.message, /lost its connection/);
    assert.equal(after.answer, `pong ${up.child.pid}`);
  } finally {
    await set.close();
    up.child.kill("SIGKILL");
  }
});
