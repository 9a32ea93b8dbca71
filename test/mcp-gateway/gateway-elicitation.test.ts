import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { connectGateway, leash, runs, setup, textOf } from "./support.js";

/** A client that can be asked (elicitation), answering every question with `answer`. */
function askingClient(answer: ElicitResult, questions: string[]): Client {
  const client = new Client({ name: "desk", version: "1" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    questions.push(request.params.message);
    return answer;
  });
  return client;
}

test("with elicitAs and elicitationApproves, the person at a client that can be asked approves there, and the call runs once", async () => {
  const at = await setup({ waitMs: 120_000, elicitAs: "desk-user", elicitationApproves: true }, ["desk-user"]);
  const target = path.join(at.files, "asked.txt");
  const questions: string[] = [];
  const client = askingClient({ action: "accept", content: { approve: true, note: "looks right" } }, questions);
  await connectGateway(at, ["--db", at.db], client);
  try {
    const result = await client.callTool(
      { name: "fs__write_file", arguments: { path: target, content: "asked and approved" } },
      undefined,
      { timeout: 150_000 },
    );
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(await readFile(target, "utf8"), "asked and approved");
    assert.equal(questions.length, 1);
    assert.match(questions[0]!, /fs__write_file/);
  } finally {
    await client.close();
  }
  const [run] = await runs(at);
  const shown = JSON.parse((await leash(["show", run!.runId, "--db", at.db, "--json"], at.dir)).stdout) as {
    state: { status: string; steps: { outcome: string; approval?: { approver: string; note?: string } }[] };
  };
  assert.equal(shown.state.status, "completed");
  assert.deepEqual(shown.state.steps[0]?.approval?.approver, "desk-user");
  assert.equal(shown.state.steps[0]?.approval?.note, "looks right");
});

test("a decline at the client is a denial; a client's capability without elicitAs is never used", async () => {
  const at = await setup({ waitMs: 120_000, elicitAs: "desk-user", elicitationApproves: true }, ["desk-user"]);
  const target = path.join(at.files, "declined.txt");
  const questions: string[] = [];
  const client = askingClient({ action: "decline" }, questions);
  await connectGateway(at, ["--db", at.db], client);
  try {
    const result = await client.callTool({ name: "fs__write_file", arguments: { path: target, content: "no" } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /denied by desk-user: declined at the client/);
    await assert.rejects(readFile(target), { code: "ENOENT" });
  } finally {
    await client.close();
  }

  const quiet = await setup({ waitMs: 1_000 });
  const unasked: string[] = [];
  const other = askingClient({ action: "accept", content: { approve: true } }, unasked);
  await connectGateway(quiet, ["--db", quiet.db], other);
  try {
    const result = await other.callTool({ name: "fs__write_file", arguments: { path: target, content: "no" } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /waits for a person's approval/);
    assert.deepEqual(unasked, []);
  } finally {
    await other.close();
  }
});
