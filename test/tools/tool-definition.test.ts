import { test } from "node:test";
import assert from "node:assert/strict";
import { Toolset, approvalDigest, tool } from "../../src/index.js";

const action = {
  runId: "run-1",
  step: 2,
  tool: "send_mail",
  args: { to: "a@example.com" },
  effect: "external" as const,
  scopes: ["mail:send"],
  historyDigest: "0".repeat(64),
};

test("the approval digest of a tool without a definition is unchanged by the definition field", () => {
  // Computed by the digest as it was before tools had definitions.
  assert.equal(approvalDigest(action), "7d3201717b4164b534ae761e6839368d0bc18df21388192e4e6a1614fe03f34f");
});

test("a tool's definition is part of the approval digest when present", () => {
  const definition = {
    server: "mail",
    name: "send",
    description: "",
    inputSchema: { type: "object" },
    annotations: {},
  };
  const one = approvalDigest({ ...action, definition });
  assert.notEqual(one, approvalDigest(action));
  const changed = approvalDigest({ ...action, definition: { ...definition, description: "Sends mail." } });
  assert.notEqual(changed, one);
});

test("describe() includes a definition only for a tool that has one", () => {
  const plain = tool({ name: "plain", execute: () => "" });
  assert.equal("definition" in plain.describe(), false);
  assert.equal(plain.definition, undefined);
  const definition = { server: "s", name: "x.y", description: "d", inputSchema: { type: "object" }, annotations: {} };
  const from = tool({ name: "s__x_y", definition, execute: () => "" });
  assert.deepEqual(from.describe().definition, definition);
  assert.deepEqual(new Toolset([plain, from]).describe()[1]?.definition, definition);
});
