import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { Agent, Policy } from "../../src/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import { callsPlanner } from "./support.js";

test("a server over Streamable HTTP on loopback: listed and called, with the headers given", async () => {
  const server = new McpServer({ name: "http", version: "1" });
  server.registerTool(
    "add",
    { inputSchema: { a: z.number(), b: z.number() }, annotations: { readOnlyHint: true, openWorldHint: false } },
    ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  const seen: (string | undefined)[] = [];
  const listener = createServer((request, response) => {
    seen.push(request.headers.authorization);
    void transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const { port } = listener.address() as AddressInfo;
  const set = await mcpTools(
    { url: `http://127.0.0.1:${port}/mcp`, headers: { authorization: "Bearer test-token" } },
    { server: "calc", trust: "trusted" },
  );
  try {
    assert.equal(set.tools[0]?.effect, "read");
    const agent = new Agent({
      tools: set.tools,
      planner: callsPlanner([["calc__add", { a: 2, b: 3 }]]),
      policy: new Policy({ grantedScopes: ["mcp:calc"] }),
    });
    const state = await agent.run("add");
    assert.equal(state.answer, "5");
    assert.ok(seen.length > 0 && seen.every((value) => value === "Bearer test-token"));
  } finally {
    await set.close();
    await server.close();
    listener.closeAllConnections();
    await new Promise((resolve) => listener.close(resolve));
  }
});
