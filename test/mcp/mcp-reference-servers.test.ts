import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Agent, Approval, MemoryStore, Policy } from "../../src/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import { callsPlanner, nextRecord, referenceServer, tempFolder } from "./support.js";

test("server-memory, trusted: creating entities waits for approval, reading the graph runs at once", async () => {
  const dir = await tempFolder();
  const file = path.join(dir, "memory.jsonl");
  const memory = await mcpTools(
    { ...referenceServer("server-memory"), env: { MEMORY_FILE_PATH: file } },
    { server: "memory", trust: "trusted" },
  );
  try {
    const effects = Object.fromEntries(memory.tools.map((item) => [item.name, item.effect]));
    assert.equal(effects.memory__read_graph, "read");
    assert.equal(effects.memory__create_entities, "write");
    assert.equal(effects.memory__delete_entities, "write");
    const entity = { name: "Ada", entityType: "person", observations: ["wrote the first program"] };
    const agent = new Agent({
      tools: memory.tools,
      planner: callsPlanner([
        ["memory__create_entities", { entities: [entity] }],
        ["memory__read_graph", {}],
      ]),
      policy: new Policy({ grantedScopes: ["mcp:memory"], allowEffects: ["read", "write"] }),
      store: new MemoryStore(),
    });
    const paused = await agent.run("remember Ada");
    assert.equal(paused.status, "awaiting_approval");
    assert.equal(paused.pending?.kind === "call" ? paused.pending.tool : undefined, "memory__create_entities");
    const done = await agent.resume(paused.runId, { approvals: [Approval.grant(paused.pending!.digest, "allen")] });
    assert.equal(done.status, "completed");
    assert.deepEqual(
      done.steps.slice(0, 2).map((step) => step.outcome),
      ["executed", "executed"],
    );
    const graph = done.answer as { entities: { name: string }[] };
    assert.deepEqual(
      graph.entities.map((item) => item.name),
      ["Ada"],
    );
    assert.match(await readFile(file, "utf8"), /"Ada"/);
  } finally {
    await memory.close();
  }
});

test("server-everything, trusted: annotations of every kind map to effects; untrusted, all are external", async () => {
  const trusted = await mcpTools(referenceServer("server-everything"), { server: "every", trust: "trusted" });
  const untrusted = await mcpTools(referenceServer("server-everything"), { server: "every" });
  try {
    const effects = Object.fromEntries(
      trusted.tools.map((item) => [item.definition!.name, [item.effect, item.idempotent]]),
    );
    assert.deepEqual(effects.echo, ["read", true]);
    assert.deepEqual(effects["gzip-file-as-resource"], ["external", false]);
    assert.deepEqual(effects["toggle-simulated-logging"], ["write", false]);
    assert.deepEqual(new Set(trusted.tools.map((item) => item.effect)), new Set(["read", "write", "external"]));
    assert.equal(untrusted.tools.length, trusted.tools.length);
    assert.ok(untrusted.tools.every((item) => item.effect === "external" && !item.idempotent));
  } finally {
    await trusted.close();
    await untrusted.close();
  }
});

test("server-everything: structured content, an image described, and an error result as a tool_error", async () => {
  const every = await mcpTools(referenceServer("server-everything"), { server: "every", trust: "trusted" });
  try {
    const agent = new Agent({
      tools: every.tools,
      planner: callsPlanner([
        ["every__get-structured-content", { location: "Chicago" }],
        ["every__get-tiny-image", {}],
        ["every__gzip-file-as-resource", { name: "x.gz", data: "ftp://example.com/x" }],
      ]),
      policy: new Policy({ grantedScopes: ["mcp:every"], allowEffects: ["read", "external"], approvalFor: [] }),
    });
    const state = await agent.run("try them");
    const [structured, image, failed] = state.steps;
    assert.equal(structured?.outcome, "executed");
    assert.equal(typeof (structured?.result as { temperature: unknown }).temperature, "number");
    assert.equal(image?.outcome, "executed");
    const parts = image?.result as unknown[];
    assert.ok(
      parts.some((part) => typeof part === "object" && part !== null && (part as { type: string }).type === "image"),
    );
    assert.equal(failed?.outcome, "tool_error");
    assert.equal(failed?.error?.code, "tool_error");
    assert.match(failed?.error?.message ?? "", /ftp/);
  } finally {
    await every.close();
  }
});

test("server-everything: a long-running tool past timeoutMs is mcp_failed, and a cancel ends the run", async () => {
  const every = await mcpTools(referenceServer("server-everything"), {
    server: "every",
    trust: "trusted",
    timeoutMs: 500,
  });
  try {
    const policy = new Policy({ grantedScopes: ["mcp:every"] });
    const long: [string, Record<string, number>] = [
      "every__trigger-long-running-operation",
      { duration: 120, steps: 120 },
    ];
    const timed = new Agent({ tools: every.tools, planner: callsPlanner([long]), policy });
    const state = await timed.run("wait");
    assert.equal(state.steps[0]?.outcome, "tool_error");
    assert.equal(state.steps[0]?.error?.code, "mcp_failed");

    const slow = await mcpTools(referenceServer("server-everything"), { server: "every", trust: "trusted" });
    try {
      const agent = new Agent({ tools: slow.tools, planner: callsPlanner([long]), policy });
      const controller = new AbortController();
      const started = nextRecord(agent, "tool_started");
      const running = agent.run("wait", { signal: controller.signal });
      await started;
      controller.abort();
      const cancelled = await running;
      assert.equal(cancelled.status, "stopped");
      assert.equal(cancelled.stopReason, "cancelled");
    } finally {
      await slow.close();
    }
  } finally {
    await every.close();
  }
});
