import assert from "node:assert/strict";
import { request } from "node:http";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { bearer, httpTransport, runs, serveHttpGateway, setup, textOf } from "./support.js";

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "page", version: "1" } },
});

const serve = serveHttpGateway;

/** A raw POST with the headers given; resolves with the status and body. */
function post(
  port: number,
  headers: Record<string, string>,
  body: string | Buffer,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...bearer(),
          ...headers,
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    // A server that refuses a large body may close the connection before it is all sent.
    sent.on("error", reject);
    sent.end(body);
  });
}

test("over --http, a request with a foreign Host or Origin (DNS rebinding) is refused with 403 and starts no session; the loopback client still works", async () => {
  const at = await setup({ waitMs: 120_000 });
  await writeFile(path.join(at.files, "secret.txt"), "secret");
  const gateway = await serve(at);
  try {
    const foreignHost = await post(gateway.port, { host: `evil.example:${gateway.port}` }, initialize);
    assert.equal(foreignHost.status, 403);
    assert.match(foreignHost.text, /Host/);
    const foreignOrigin = await post(
      gateway.port,
      { host: `localhost:${gateway.port}`, origin: "http://evil.example" },
      initialize,
    );
    assert.equal(foreignOrigin.status, 403);
    assert.match(foreignOrigin.text, /Origin/);
    const client = new Client({ name: "gateway-test", version: "1" });
    await client.connect(httpTransport(gateway.port));
    try {
      const result = await client.callTool({
        name: "fs__read_text_file",
        arguments: { path: path.join(at.files, "secret.txt") },
      });
      assert.equal(textOf(result), "secret");
    } finally {
      await client.close();
    }
  } finally {
    await gateway.stop();
  }
});

test("over --http, an Origin the config's http.allowedOrigins names is served", async () => {
  const at = await setup({ waitMs: 120_000 });
  const config = JSON.parse(await readFile(at.config, "utf8")) as Record<string, unknown>;
  await writeFile(at.config, JSON.stringify({ ...config, http: { allowedOrigins: ["http://app.example"] } }));
  const gateway = await serve(at);
  try {
    const allowed = await post(
      gateway.port,
      { host: `127.0.0.1:${gateway.port}`, origin: "http://app.example" },
      initialize,
    );
    assert.equal(allowed.status, 200, allowed.text);
  } finally {
    await gateway.stop();
  }
});

test("over --http, a body larger than maxMessageBytes is refused with 413 and the gateway keeps serving", async () => {
  const at = await setup({ waitMs: 120_000 });
  const config = JSON.parse(await readFile(at.config, "utf8")) as Record<string, unknown>;
  await writeFile(at.config, JSON.stringify({ ...config, maxMessageBytes: 65_536 }));
  const gateway = await serve(at);
  try {
    const huge = await post(gateway.port, { host: `127.0.0.1:${gateway.port}` }, Buffer.alloc(1_000_000, "a")).catch(
      (error: Error) => ({ status: -1, text: error.message }),
    );
    // Refused as too large (or the connection closed on it); never read whole.
    assert.ok(huge.status === 413 || huge.status === -1, `${huge.status} ${huge.text}`);
    const client = new Client({ name: "gateway-test", version: "1" });
    await client.connect(httpTransport(gateway.port));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.length > 0);
    } finally {
      await client.close();
    }
    assert.deepEqual(await runs(at), []);
  } finally {
    await gateway.stop();
  }
});
