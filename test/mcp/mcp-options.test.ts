import { test } from "node:test";
import assert from "node:assert/strict";
import { isLeashError } from "../../src/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import type { McpToolsOptions } from "../../src/mcp/index.js";

const source = { command: process.execPath, args: ["-e", "process.exit(1)"] };

test("bad options throw invalid_option before any server is started", async () => {
  const bad: unknown[] = [
    {},
    { server: "has space" },
    { server: "s", trust: "maybe" },
    { server: "s", timeoutMs: 0 },
    // Past 2^31 - 1 a Node timer fires at once: every call would time out on the spot.
    { server: "s", timeoutMs: 2 ** 31 },
    { server: "s", include: "read_file" },
    { server: "s", scopes: [""] },
    { server: "s", overrides: { write_file: { effect: "delete" } } },
    { server: "s", overrides: { write_file: { idempotent: "yes" } } },
  ];
  for (const options of bad) {
    await assert.rejects(mcpTools(source, options as McpToolsOptions), (error) =>
      isLeashError(error, "invalid_option"),
    );
  }
  await assert.rejects(mcpTools(null as never, { server: "s" }), (error) => isLeashError(error, "invalid_option"));
});
