// The built `leash/mcp` subpath, imported by the package's own name as users do (`npm test` builds
// first); the root `leash` never loads the MCP SDK (test/core/exports.test.ts checks that).
import { test } from "node:test";
import assert from "node:assert/strict";
import { referenceServer } from "./support.js";

test("the built leash/mcp subpath lists server-memory's tools as leash tools", async () => {
  const { mcpTools } = await import("leash/mcp");
  const memory = await mcpTools(referenceServer("server-memory"), { server: "memory" });
  try {
    assert.ok(memory.tools.some((item) => item.name === "memory__read_graph"));
    assert.ok(memory.tools.every((item) => item.effect === "external"));
  } finally {
    await memory.close();
  }
});
