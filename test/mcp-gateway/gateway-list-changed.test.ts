import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectGateway, httpTransport, serveHttpGateway, setup, textOf } from "./support.js";
import type { Setup } from "./support.js";

const changingServer = fileURLToPath(new URL("../fixtures/mcp-changing-server.mjs", import.meta.url));

/** A config in front of the changing server, whose tools all run without approval. */
async function changingSetup(): Promise<Setup> {
  const at = await setup({ waitMs: 60_000 });
  await writeFile(
    at.config,
    JSON.stringify({
      servers: { ch: { command: process.execPath, args: [changingServer] } },
      policy: { grantedScopes: ["mcp:ch"], allowEffects: ["read"] },
    }),
  );
  return at;
}

/** Counts the client's `notifications/tools/list_changed`; `next()` resolves at the next one. */
function listChanges(client: Client): { next: () => Promise<void> } {
  let waiters: (() => void)[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  });
  return { next: () => new Promise<void>((resolve) => waiters.push(resolve)) };
}

async function greetSchema(client: Client): Promise<Record<string, unknown> | undefined> {
  const { tools } = await client.listTools();
  return tools.find((item) => item.name === "ch__greet")?.inputSchema.properties;
}

test("an upstream that redefines a tool: the client is told tools/list_changed and lists the new schema; a tool dropped is no longer listed and its calls are refused", async () => {
  const at = await changingSetup();
  const { client } = await connectGateway(at);
  try {
    const changes = listChanges(client);
    assert.deepEqual(Object.keys((await greetSchema(client)) ?? {}), ["name"]);
    assert.equal(textOf(await client.callTool({ name: "ch__greet", arguments: { name: "ann" } })), "hello ann");

    const reshaped = changes.next();
    assert.equal(textOf(await client.callTool({ name: "ch__reshape", arguments: {} })), "reshaped");
    await reshaped;
    assert.deepEqual(Object.keys((await greetSchema(client)) ?? {}).sort(), ["loud", "name"]);
    const loud = await client.callTool({ name: "ch__greet", arguments: { name: "bo", loud: true } });
    assert.equal(textOf(loud), "hello bo");

    const dropped = changes.next();
    assert.equal(textOf(await client.callTool({ name: "ch__drop", arguments: {} })), "dropped");
    await dropped;
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((item) => item.name).sort(), ["ch__drop", "ch__reshape"]);
    const refused = await client.callTool({ name: "ch__greet", arguments: { name: "cy", loud: false } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /no longer lists `ch__greet`/);
  } finally {
    await client.close();
  }
});

/**
 * An SDK Client over Streamable HTTP, and a promise that resolves once its standalone SSE stream (the
 * GET the SDK opens after it connects, where notifications outside a request arrive) is open.
 */
async function httpClient(port: number): Promise<{ client: Client; listening: Promise<void> }> {
  let opened!: () => void;
  const listening = new Promise<void>((resolve) => (opened = resolve));
  const transport = httpTransport(port, undefined, {
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      if ((init?.method ?? "GET") === "GET" && response.ok) opened();
      return response;
    },
  });
  const client = new Client({ name: "http-test", version: "1" });
  await client.connect(transport);
  return { client, listening };
}

test("over --http, every session is told tools/list_changed when an upstream redefines a tool, and lists the new schema", async () => {
  const at = await changingSetup();
  const gateway = await serveHttpGateway(at);
  const sessions = [await httpClient(gateway.port), await httpClient(gateway.port)];
  try {
    const changes = sessions.map(({ client }) => listChanges(client));
    await Promise.all(sessions.map(({ listening }) => listening));
    const told = changes.map((each) => each.next());
    const [caller] = sessions;
    assert.equal(textOf(await caller!.client.callTool({ name: "ch__reshape", arguments: {} })), "reshaped");
    await Promise.all(told);
    for (const { client } of sessions)
      assert.deepEqual(Object.keys((await greetSchema(client)) ?? {}).sort(), ["loud", "name"]);
  } finally {
    for (const { client } of sessions) await client.close();
    await gateway.stop();
  }
  assert.equal(await gateway.exit, 0);
});
