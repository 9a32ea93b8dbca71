import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { MemoryStore } from "../../src/index.js";
import { Gateway } from "../../src/gateway/gateway.js";
import type { GatewayConfig } from "../../src/gateway/gateway-config.js";
import { checkGatewayConfig } from "../../src/gateway/gateway-config.js";
import { serveHttp } from "../../src/gateway/gateway-http.js";
import type { HttpCredential } from "../../src/gateway/gateway-credential.js";
import type { ToolChanges } from "../../src/gateway/upstreams.js";
import { eventually } from "../mcp/support.js";
import { bearer, httpTransport } from "./support.js";

/** A gateway with no tools, in this process, whose change listeners (one per live MCP server) are counted. */
function gatewayOf(http: Record<string, unknown> = {}): {
  gateway: Gateway;
  config: GatewayConfig;
  listeners: Set<() => void>;
} {
  const config = checkGatewayConfig({ servers: { a: { command: "x" } }, http }, "c.json", "/");
  const listeners = new Set<() => void>();
  const changes: ToolChanges = {
    refused: new Set(),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
  return { gateway: new Gateway(config, new MemoryStore(), [], [], "", changes), config, listeners };
}

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer() };

/** A credential that knows one token, the test token, as the client `test-client`. */
const credential: HttpCredential = {
  label: "a test token",
  clientOf: (authorization) => Promise.resolve(authorization === bearer().authorization ? "test-client" : undefined),
  close: () => Promise.resolve(),
};

test("over --http, 6,000 POSTs without a session that are not initialize are refused (400, JSON-RPC) and leave no session or server behind", async () => {
  const { gateway, config, listeners } = gatewayOf();
  const served = await serveHttp(gateway, new Map(), "1", 0, config, credential);
  try {
    const url = `http://127.0.0.1:${served.port}/mcp`;
    for (let i = 0; i < 6000; i += 1) {
      const body = JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/list", params: {} });
      const answer = await fetch(url, { method: "POST", headers, body });
      assert.equal(answer.status, 400);
      const error = (await answer.json()) as { jsonrpc: string; error: { code: number } };
      assert.equal(error.jsonrpc, "2.0");
      assert.equal(error.error.code, -32000);
    }
    const get = await fetch(url, { headers: { accept: "text/event-stream", ...bearer() } });
    assert.equal(get.status, 400);
    await get.body?.cancel();
    assert.equal(served.sessions(), 0);
    assert.equal(listeners.size, 0);
    // Another path is not MCP.
    const other = await fetch(`http://127.0.0.1:${served.port}/`, { method: "POST", headers, body: "{}" });
    assert.equal(other.status, 404);
    await other.body?.cancel();
    // A real client still gets a session.
    const client = new Client({ name: "t", version: "1" });
    await client.connect(httpTransport(served.port));
    assert.deepEqual((await client.listTools()).tools, []);
    assert.equal(served.sessions(), 1);
    await client.close();
  } finally {
    await served.close();
  }
});

test("over --http, a session idle for longer than http.sessionIdleMs is closed; its id is then unknown (404)", async () => {
  const { gateway, config, listeners } = gatewayOf({ sessionIdleMs: 200 });
  const served = await serveHttp(gateway, new Map(), "1", 0, config, credential);
  try {
    const url = `http://127.0.0.1:${served.port}/mcp`;
    const transport = httpTransport(served.port);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(transport);
    const id = transport.sessionId!;
    await client.listTools();
    // The client's own GET stream is open: it is not idle until that ends too.
    await transport.close();
    await eventually(() => served.sessions() === 0, "the idle session to close");
    assert.equal(listeners.size, 0);
    const late = await fetch(url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    assert.equal(late.status, 404);
    await late.body?.cancel();
  } finally {
    await served.close();
  }
});
