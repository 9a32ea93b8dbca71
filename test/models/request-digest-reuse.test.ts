// A request's digest reuses what earlier requests computed (the checked text of frozen tool
// descriptions, the hash chain of the messages they share); it must equal the digest computed
// from scratch by the documented formula, whatever was seen before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { ModelMessage, ModelRequest, ToolDescription } from "../../src/index.js";
import { modelRequestDigest } from "../../src/index.js";

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

const sha = (text: string): string => createHash("sha256").update(text).digest("hex");

/** The digest by API.md's formula: canonical JSON with the messages replaced by their count and chain. */
function expectedDigest(request: ModelRequest): string {
  let chain = "";
  for (const message of request.messages) chain = sha(chain + sha(canonicalize(message) as string));
  const { messages, ...head } = structuredClone(request);
  return sha(canonicalize({ ...head, messages: { count: messages.length, chain } }) as string);
}

const tool = (name: string): ToolDescription => ({
  name,
  effect: "read",
  scopes: [],
  cost: 0,
  idempotent: true,
  description: `The ${name} tool: "quoted", ünïcode, \\ and a line\nbreak.`,
  parameters: { type: "object", properties: { text: { type: "string" }, n: { type: "integer", minimum: -0.5 } } },
});

test("a request's digest equals the formula's whether its tools are frozen and whatever requests came before", () => {
  const task = deepFreeze<ModelMessage>({ role: "user", content: "Label the shelf." });
  const answer = deepFreeze<ModelMessage>({
    role: "assistant",
    calls: [{ id: "c1", tool: "read", args: { text: "a" } }],
  });
  const result = deepFreeze<ModelMessage>({
    role: "tool",
    callId: "c1",
    tool: "read",
    outcome: "executed",
    content: { found: [1, 2.5, "x"] },
  });
  const other = deepFreeze<ModelMessage>({ role: "user", content: "Something else." });
  const frozenTools = deepFreeze([tool("read"), tool("write")]);
  const requests: ModelRequest[] = [
    { system: "You keep a shelf.", messages: [task], tools: [tool("read"), tool("write")] },
    { system: "You keep a shelf.", messages: [task], tools: [...frozenTools] },
    { system: "You keep a shelf.", messages: [task, answer, result], tools: [...frozenTools], maxOutputTokens: 50 },
    { system: "You keep a shelf.", messages: [task, other], tools: [...frozenTools] },
    {
      system: "Another purpose.",
      messages: [task, answer, result],
      tools: [frozenTools[1]!],
      output: { type: "object" },
    },
    { system: "", messages: [task, answer, result, other], tools: [] },
    { system: "You keep a shelf.", messages: [task, answer], tools: [...frozenTools, tool("note")] },
  ];
  for (const [index, request] of requests.entries())
    assert.equal(modelRequestDigest(request), expectedDigest(request), `request ${index}`);
  // The same request twice gives the same digest.
  assert.equal(modelRequestDigest(requests[2]!), modelRequestDigest(requests[2]!));
});
