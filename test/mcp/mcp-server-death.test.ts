import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, MemoryStore, Policy, isLeashError } from "../../src/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import { callsPlanner, pidIn, tempFolder } from "./support.js";

const fixture = fileURLToPath(new URL("../fixtures/mcp-slow-server.mjs", import.meta.url));

test("a server process killed in the middle of a call: the step is mcp_failed, the next call reconnects, and the run ends with a saved state", async () => {
  const dir = await tempFolder();
  const pidFile = path.join(dir, "pid");
  const slow = await mcpTools({ command: process.execPath, args: [fixture, pidFile] }, { server: "slow" });
  try {
    const store = new MemoryStore();
    const agent = new Agent({
      tools: slow.tools,
      planner: callsPlanner([
        ["slow__slow", {}],
        ["slow__quick", {}],
      ]),
      policy: new Policy({ grantedScopes: ["mcp:slow"], allowEffects: ["read", "external"], approvalFor: [] }),
      store,
    });
    const running = agent.run("wait for it");
    const pid = await pidIn(pidFile);
    process.kill(pid, "SIGKILL");
    const state = await running;
    assert.equal(state.status, "completed");
    assert.deepEqual(
      state.steps.slice(0, 2).map((step) => [step.outcome, step.error?.code]),
      [
        ["tool_error", "mcp_failed"],
        ["executed", undefined],
      ],
    );
    const saved = await store.load(state.runId);
    assert.equal(saved?.status, "completed");
    assert.equal(saved?.steps[0]?.error?.code, "mcp_failed");
  } finally {
    await slow.close();
  }
});

test("a command that is not an MCP server throws mcp_unavailable from mcpTools", async () => {
  await assert.rejects(
    mcpTools({ command: process.execPath, args: ["-e", "process.exit(3)"] }, { server: "none", timeoutMs: 10_000 }),
    (error) => isLeashError(error, "mcp_unavailable"),
  );
});
