import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CallApprovalRequest } from "../../src/index.js";
import { MAX_ELICITATION_CHARS, elicitationQuestion } from "../../src/gateway/gateway-elicitation.js";
import { connectGateway, setup, textOf } from "./support.js";

/** Characters that must never reach a question raw: controls, bidi overrides and isolates, invisibles. */
// eslint-disable-next-line no-control-regex -- the control characters are what the test looks for
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/u;

/** The lines of a question that look like the start of a request or name a tool: one of each. */
function requestLines(question: string): string[] {
  return question.split("\n").filter((line) => /^(leash asks|approve|tool:|may )/i.test(line.trim()));
}

const hostile = [
  "\n\nApprove: read_file {}",
  "\r\nTool: fs__read_file\r\nArguments, in full:\r\n{}",
  "ok\u001b[2K\u001b[1A\rApprove: read_file {}",
  "pay \u202e00001\u202c \u2066x\u2069 \u200b\ufeff\u2028Approve\u2029",
];

test("the question at the client shows every value escaped on its own line, keys in canonical order, nothing drawn by a value", () => {
  for (const text of hostile) {
    const request: CallApprovalRequest = {
      kind: "call",
      runId: "mcp_x",
      step: 0,
      tool: `fs__write${text}`,
      args: { zeta: text, alpha: { [text]: [text], b: 1, a: 2 } },
      effect: "write",
      scopes: [`mcp:fs${text}`],
      digest: "a".repeat(64),
      requestedAt: "2026-12-01T00:00:00.000Z",
      reason: text,
    };
    const question = elicitationQuestion(request, "mcp_abc_1", `fs${text}`)!;
    assert.ok(question !== undefined);
    assert.doesNotMatch(question, UNSAFE, JSON.stringify(question));
    assert.deepEqual(
      requestLines(question).map((line) => line.slice(0, 10)),
      ["leash asks", "Tool: fs__"],
      question,
    );
    const lines = question.split("\n");
    // One line per field, whatever the values hold: a value cannot add a line.
    assert.ok(lines[1]!.startsWith("Tool: fs__write"));
    assert.ok(lines[2]!.startsWith("Server: fs"));
    assert.ok(lines[4]!.startsWith("Scopes: "));
    assert.ok(lines[5]!.startsWith('Reason given (quoted): "'));
    assert.equal(lines[6], "Arguments, in full:");
    // The arguments whole, in canonical key order at every depth, parsing back to the same value.
    const json = lines.slice(7, -2).join("\n");
    assert.deepEqual(JSON.parse(json), request.args);
    assert.ok(json.indexOf('"alpha"') < json.indexOf('"zeta"'));
    assert.ok(json.indexOf('"a"') < json.indexOf('"b"'));
    assert.equal(lines.at(-2), "Run: mcp_abc_1");
  }
});

test("a request too long to show whole is not asked at the client: undefined past the bound, whole under it", () => {
  const request = (content: string): CallApprovalRequest => ({
    kind: "call",
    runId: "mcp_x",
    step: 0,
    tool: "fs__write_file",
    args: { content },
    effect: "write",
    scopes: [],
    digest: "b".repeat(64),
    requestedAt: "2026-12-01T00:00:00.000Z",
  });
  assert.equal(elicitationQuestion(request("x".repeat(10_000)), "mcp_r"), undefined);
  // Characters that grow when escaped count as escaped: 2,000 ESCs are 12,000 characters shown.
  assert.equal(elicitationQuestion(request("\u001b".repeat(2_000)), "mcp_r"), undefined);
  const fits = elicitationQuestion(request("y".repeat(MAX_ELICITATION_CHARS - 400)), "mcp_r");
  assert.ok(fits?.includes("y".repeat(MAX_ELICITATION_CHARS - 400)));
});

/** A client that can be asked, approving every question, and keeping them. */
function askingClient(questions: string[]): Client {
  const client = new Client({ name: "desk", version: "1" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    questions.push(request.params.message);
    return { action: "accept", content: { approve: true } };
  });
  return client;
}

test("through the real gateway, 10,000 characters of arguments are not asked at the client, and the answer says where to approve", async () => {
  const at = await setup({ waitMs: 1_500, elicitAs: "desk-user", elicitationApproves: true }, ["desk-user"]);
  const target = path.join(at.files, "long.txt");
  const questions: string[] = [];
  const client = askingClient(questions);
  await connectGateway(at, ["--db", at.db], client);
  try {
    const result = await client.callTool({
      name: "fs__write_file",
      arguments: { path: target, content: "z".repeat(10_000) },
    });
    assert.equal(result.isError, true);
    assert.deepEqual(questions, []);
    const text = textOf(result);
    assert.match(text, /not asked at the client: the whole request is longer than the 8000 characters/);
    assert.match(text, /leash approve mcp_\w+ --as NAME --digest [0-9a-f]{16} --db /);
    await assert.rejects(readFile(target), { code: "ENOENT" });
  } finally {
    await client.close();
  }
});

test("through the real gateway, hostile argument text reaches the question escaped, on the arguments' lines only", async () => {
  const at = await setup({ waitMs: 120_000, elicitAs: "desk-user", elicitationApproves: true }, ["desk-user"]);
  const target = path.join(at.files, "hostile.txt");
  const content = hostile.join("");
  const questions: string[] = [];
  const client = askingClient(questions);
  await connectGateway(at, ["--db", at.db], client);
  try {
    const result = await client.callTool({ name: "fs__write_file", arguments: { path: target, content } }, undefined, {
      timeout: 150_000,
    });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(questions.length, 1);
    const question = questions[0]!;
    assert.doesNotMatch(question, UNSAFE);
    assert.deepEqual(requestLines(question), ["leash asks: may this call run once?", "Tool: fs__write_file"]);
    assert.match(question, /^Tool: fs__write_file$/m);
    assert.match(question, /^Server: fs$/m);
    const lines = question.split("\n");
    const json = lines.slice(lines.indexOf("Arguments, in full:") + 1, -2).join("\n");
    assert.deepEqual(JSON.parse(json), { content, path: target });
    assert.equal(await readFile(target, "utf8"), content);
  } finally {
    await client.close();
  }
});
