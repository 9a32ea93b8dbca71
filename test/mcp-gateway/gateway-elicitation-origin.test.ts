import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import type { AnswerOrigin } from "../../src/index.js";
import { connectGateway, heldSetup, httpTransport, readOrEmpty, serveHttpGateway, textOf } from "./support.js";

/** A client that can be asked, approving every question, counting them. */
function approvingClient(asked: string[]): Client {
  const client = new Client({ name: "desk", version: "1" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { approve: true, note: "from the desk" } };
  });
  return client;
}

/** The origins of the `approval_answered` records of a run, as the store's trail keeps them. */
async function answeredOrigins(db: string, runId: string): Promise<(AnswerOrigin | undefined)[]> {
  const store = new SqliteStore(db);
  try {
    return (await store.read(runId))
      .filter((record) => record.event === "approval_answered")
      .map((record) => (record.data as { origin?: AnswerOrigin }).origin);
  } finally {
    await store.close();
  }
}

test("without approval.elicitationApproves, an approval given at the client is recorded via mcp_elicitation but runs nothing, and the reply says why", async () => {
  const at = await heldSetup(
    { approvers: ["desk-user"] },
    { approval: { waitMs: 400, pollMs: 50, elicitAs: "desk-user" } },
  );
  writeFileSync(at.release, "");
  const asked: string[] = [];
  const client = approvingClient(asked);
  await connectGateway(at, ["--db", at.db], client);
  try {
    let result = await client.callTool({ name: "held__hold", arguments: { n: 1 } });
    const runId = (result.structuredContent as { runId: string }).runId;
    // Until the answer given at the client is recorded, the repeated call asks again and waits.
    for (let tries = 0; tries < 50; tries += 1) {
      if (((result.structuredContent as { notCounted?: unknown[] }).notCounted ?? []).length > 0) break;
      result = await client.callTool({ name: "held__hold", arguments: { n: 1 } });
    }
    const data = result.structuredContent as { runId: string; notCounted?: { approver: string; via: string }[] };
    assert.equal(data.runId, runId);
    assert.equal(data.notCounted?.[0]?.approver, "desk-user");
    assert.equal(data.notCounted?.[0]?.via, "mcp_elicitation");
    assert.match(textOf(result), /given at the MCP client.*approval\.elicitationApproves/);
    assert.equal(readOrEmpty(at.count), "");
    assert.ok(asked.length >= 1);
    const origins = await answeredOrigins(at.db, runId);
    assert.ok(origins.length >= 1);
    for (const origin of origins) {
      assert.equal(origin?.via, "mcp_elicitation");
      assert.equal(origin?.client, "stdio");
    }
  } finally {
    await client.close();
  }
});

test("with approval.elicitationApproves, an approval given at an --http client runs the call once, audited via mcp_elicitation with the client's name", async () => {
  const at = await heldSetup(
    { approvers: ["desk-user"] },
    { approval: { waitMs: 120_000, pollMs: 50, elicitAs: "desk-user", elicitationApproves: true } },
  );
  writeFileSync(at.release, "");
  const gateway = await serveHttpGateway(at);
  const asked: string[] = [];
  const client = approvingClient(asked);
  await client.connect(httpTransport(gateway.port));
  try {
    const result = await client.callTool({ name: "held__hold", arguments: { n: 2 } }, undefined, {
      timeout: 150_000,
    });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(readOrEmpty(at.count), "hold 2\n");
    assert.equal(asked.length, 1);
    const store = new SqliteStore(at.db);
    const [run] = await store.list({});
    await store.close();
    const origins = await answeredOrigins(at.db, run!.runId);
    assert.equal(origins.length, 1);
    assert.equal(origins[0]?.via, "mcp_elicitation");
    assert.equal(origins[0]?.client, "test-client");
    assert.equal(typeof origins[0]?.host, "string");
  } finally {
    await client.close();
    await gateway.stop();
  }
});
