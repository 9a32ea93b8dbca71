import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { connectGateway, setup, textOf } from "./support.js";
import type { Setup } from "./support.js";

const echoServer = fileURLToPath(new URL("../fixtures/mcp-echo-server.mjs", import.meta.url));

async function echoSetup(extra: Record<string, unknown> = {}): Promise<Setup> {
  const at = await setup({ waitMs: 120_000 });
  await writeFile(
    at.config,
    JSON.stringify({
      servers: { e: { command: process.execPath, args: [echoServer] } },
      policy: { grantedScopes: ["mcp:e"], allowEffects: ["read"] },
      ...extra,
    }),
  );
  return at;
}

test("over stdio, a message larger than maxMessageBytes is refused with an error naming the limit, and the gateway serves on", async () => {
  const at = await echoSetup({ maxMessageBytes: 100_000 });
  const { client, transport } = await connectGateway(at);
  let said = "";
  transport.stderr?.on("data", (chunk: Buffer) => (said += chunk.toString()));
  try {
    await assert.rejects(
      client.callTool({ name: "e__echo", arguments: { s: "x".repeat(1_000_000) } }),
      /larger than the gateway's limit of 100000 bytes/,
    );
    assert.equal(textOf(await client.callTool({ name: "e__echo", arguments: { a: 1 } })), "got 7 chars, keys a");
    assert.match(said, /refused a message on stdin larger than 100000 bytes/);
  } finally {
    await client.close();
  }
});

test("arguments too large for a run are a tool error result that names the limit, not a protocol error", async () => {
  const at = await echoSetup();
  const { client } = await connectGateway(at);
  try {
    const result = await client.callTool({ name: "e__echo", arguments: { s: "x".repeat(1_100_000) } });
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      /its arguments are 1100008 characters of JSON; a call through the gateway takes at most \d+ characters/,
    );
    assert.equal(textOf(await client.callTool({ name: "e__echo", arguments: { a: 1 } })), "got 7 chars, keys a");
  } finally {
    await client.close();
  }
});

test("arguments nested too deep are a tool error result, not a protocol error", async () => {
  const at = await echoSetup();
  const { client } = await connectGateway(at);
  try {
    const deep: Record<string, unknown> = {};
    let at_ = deep;
    for (let level = 0; level < 1000; level += 1) {
      const next: Record<string, unknown> = {};
      at_.d = next;
      at_ = next;
    }
    const result = await client.callTool({ name: "e__echo", arguments: deep });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /leash: the call did not run/);
  } finally {
    await client.close();
  }
});
