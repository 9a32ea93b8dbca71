import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Agent, Approval, MemoryStore, Policy } from "../../src/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import { callsPlanner, referenceServer, tempFolder } from "./support.js";

test("a trusted server-filesystem over stdio: its reads are read tools that run under a granted scope", async () => {
  const dir = await tempFolder();
  await writeFile(path.join(dir, "notes.txt"), "the notes");
  const fs = await mcpTools(referenceServer("server-filesystem", [dir]), { server: "fs", trust: "trusted" });
  try {
    const byName = new Map(fs.tools.map((item) => [item.name, item]));
    assert.deepEqual(fs.skipped, []);
    assert.equal(byName.get("fs__read_text_file")?.effect, "read");
    assert.equal(byName.get("fs__read_text_file")?.idempotent, true);
    assert.equal(byName.get("fs__write_file")?.effect, "write");
    assert.equal(byName.get("fs__edit_file")?.idempotent, false);
    assert.deepEqual(byName.get("fs__write_file")?.scopes, ["mcp:fs"]);
    const described = byName.get("fs__write_file")!.describe();
    assert.equal(described.definition?.server, "fs");
    assert.equal(described.definition?.name, "write_file");
    assert.deepEqual(described.definition?.annotations, {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });

    const agent = new Agent({
      tools: fs.tools,
      planner: callsPlanner([["fs__read_text_file", { path: path.join(dir, "notes.txt") }]]),
      policy: new Policy({ grantedScopes: ["mcp:fs"] }),
    });
    const state = await agent.run("read the notes");
    assert.equal(state.status, "completed");
    assert.equal(state.steps[0]?.outcome, "executed");
    assert.deepEqual(state.answer, { content: "the notes" });
  } finally {
    await fs.close();
  }
});

test("the default policy runs no tool of an MCP server: each is refused for its scope", async () => {
  const dir = await tempFolder();
  await writeFile(path.join(dir, "notes.txt"), "the notes");
  const fs = await mcpTools(referenceServer("server-filesystem", [dir]), { server: "fs", trust: "trusted" });
  try {
    const agent = new Agent({
      tools: fs.tools,
      planner: callsPlanner([["fs__read_text_file", { path: path.join(dir, "notes.txt") }]]),
    });
    const state = await agent.run("read the notes");
    assert.equal(state.steps[0]?.outcome, "scope_denied");
  } finally {
    await fs.close();
  }
});

test("a write of a trusted server-filesystem pauses for approval and runs once after it", async () => {
  const dir = await tempFolder();
  const target = path.join(dir, "out.txt");
  const fs = await mcpTools(referenceServer("server-filesystem", [dir]), { server: "fs", trust: "trusted" });
  try {
    const store = new MemoryStore();
    const agent = new Agent({
      tools: fs.tools,
      planner: callsPlanner([["fs__write_file", { path: target, content: "written once" }]]),
      policy: new Policy({ grantedScopes: ["mcp:fs"], allowEffects: ["read", "write"] }),
      store,
    });
    const paused = await agent.run("write the file");
    assert.equal(paused.status, "awaiting_approval");
    const pending = paused.pending?.kind === "call" ? paused.pending : undefined;
    assert.equal(pending?.tool, "fs__write_file");
    assert.equal(pending?.effect, "write");
    await assert.rejects(readFile(target), { code: "ENOENT" });
    const done = await agent.resume(paused.runId, { approvals: [Approval.grant(paused.pending!.digest, "allen")] });
    assert.equal(done.status, "completed");
    assert.equal(done.steps[0]?.outcome, "executed");
    assert.equal(done.toolCalls, 1);
    assert.equal(await readFile(target, "utf8"), "written once");
  } finally {
    await fs.close();
  }
});

test("an untrusted server-filesystem: every tool is external and not idempotent, whatever it says", async () => {
  const dir = await tempFolder();
  const fs = await mcpTools(referenceServer("server-filesystem", [dir]), { server: "fs" });
  try {
    assert.ok(fs.tools.length > 5);
    for (const item of fs.tools) {
      assert.equal(item.effect, "external", item.name);
      assert.equal(item.idempotent, false, item.name);
    }
    const agent = new Agent({
      tools: fs.tools,
      planner: callsPlanner([["fs__list_directory", { path: dir }]]),
      policy: new Policy({ grantedScopes: ["mcp:fs"] }),
    });
    const state = await agent.run("list the folder");
    assert.equal(state.steps[0]?.outcome, "effect_denied");
  } finally {
    await fs.close();
  }
});

test("include, exclude, overrides and scopes are keyed by the MCP name", async () => {
  const dir = await tempFolder();
  const fs = await mcpTools(referenceServer("server-filesystem", [dir]), {
    server: "files",
    trust: "trusted",
    include: ["read_text_file", "write_file", "move_file"],
    exclude: ["move_file"],
    scopes: ["files:all"],
    overrides: { write_file: { effect: "external", scopes: ["files:write"] }, read_text_file: { idempotent: false } },
  });
  try {
    const described = fs.tools.map((item) => item.describe());
    assert.deepEqual(
      described.map(({ name, effect, idempotent, scopes }) => ({ name, effect, idempotent, scopes })),
      [
        { name: "files__read_text_file", effect: "read", idempotent: false, scopes: ["files:all"] },
        { name: "files__write_file", effect: "external", idempotent: false, scopes: ["files:write"] },
      ],
    );
  } finally {
    await fs.close();
  }
});
