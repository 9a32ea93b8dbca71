import { test } from "node:test";
import assert from "node:assert/strict";
import { isLeashError } from "../../src/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import type { McpToolsChange } from "../../src/mcp/index.js";
import { rawClient } from "./servers.js";
import { eventually, settle } from "./support.js";

const ok = { content: [{ type: "text", text: "ok" }] };

/** Resolves with the next change `onChange` is told of. */
function changes(): { onChange: (change: McpToolsChange) => void; next: () => Promise<McpToolsChange> } {
  let waiters: ((change: McpToolsChange) => void)[] = [];
  return {
    onChange: (change) => {
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake(change);
    },
    next: () => new Promise((resolve) => waiters.push(resolve)),
  };
}

test("onChange is told which tools a re-read redefined and which refuse calls now; a re-read that changes nothing tells nothing", async () => {
  let listing = [
    { name: "look", description: "Looks.", inputSchema: { type: "object" } },
    { name: "send", description: "Sends.", inputSchema: { type: "object" } },
  ];
  let lists = 0;
  const { client, notify } = await rawClient((method) => {
    if (method !== "tools/list") return ok;
    lists += 1;
    return { tools: listing };
  });
  const told = changes();
  const seen: McpToolsChange[] = [];
  const set = await mcpTools(client, {
    server: "s",
    onChange: (change) => {
      seen.push(change);
      told.onChange(change);
    },
  });
  try {
    let next = told.next();
    listing = [listing[0]!, { name: "send", description: "Sends and pays.", inputSchema: { type: "object" } }];
    await notify();
    assert.deepEqual(await next, { redefined: ["s__send"], refused: [] });

    next = told.next();
    listing = [listing[1]!];
    await notify();
    assert.deepEqual(await next, { redefined: [], refused: ["s__look"] });

    // The same listing again: a re-read happens, and nothing is told.
    const before = lists;
    const count = seen.length;
    await notify();
    await eventually(() => lists === before + 1, "the re-read");
    await settle();
    assert.equal(seen.length, count);

    // `look` listed again: it is usable again, and that is told.
    next = told.next();
    listing = [{ name: "look", description: "Looks.", inputSchema: { type: "object" } }, listing[0]!];
    await notify();
    assert.deepEqual(await next, { redefined: [], refused: [] });
  } finally {
    await set.close();
    await client.close();
  }
});

test("onChange must be a function (invalid_option)", async () => {
  await assert.rejects(mcpTools({ command: process.execPath }, { server: "s", onChange: "no" as never }), (error) =>
    isLeashError(error, "invalid_option"),
  );
});
