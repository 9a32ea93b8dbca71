import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, Policy } from "../../src/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import { clientOf, definition, garbledClient, listingServer } from "./servers.js";
import { callsPlanner, eventually } from "./support.js";

const grant = (server: string) =>
  new Policy({ grantedScopes: [`mcp:${server}`], allowEffects: ["read", "write", "external"], approvalFor: [] });

test("every page of tools/list is read, names become <server>__<name>, sanitized, unique and at most 64 characters", async () => {
  const long = "x".repeat(80);
  const tools = [
    definition("get weather"),
    definition("get.weather"),
    definition("ok-name_1"),
    definition(long),
    definition(`${long}y`),
    ...Array.from({ length: 7 }, (_, i) => definition(`t${i}`)),
  ];
  const client = await clientOf(listingServer(tools, () => ({ content: [] }), 3));
  const set = await mcpTools(client, { server: "wx" });
  try {
    const names = set.tools.map((item) => item.name);
    assert.equal(names.length, tools.length);
    assert.equal(new Set(names).size, names.length);
    for (const name of names) assert.match(name, /^[A-Za-z0-9_-]{1,64}$/);
    assert.deepEqual(names.slice(0, 3), ["wx__get_weather", "wx__get_weather_2", "wx__ok-name_1"]);
    assert.equal(set.tools[1]!.definition?.name, "get.weather");
    assert.equal(names[3]!.length, 64);
    assert.equal(names[4]!.length, 64);
  } finally {
    await set.close();
    await client.close();
  }
});

test("the original MCP name is what is called", async () => {
  const called: string[] = [];
  const client = await clientOf(
    listingServer([definition("get.weather", { city: { type: "string" } })], (name, args) => {
      called.push(`${name}:${String(args.city)}`);
      return { content: [{ type: "text", text: "sunny" }] };
    }),
  );
  const set = await mcpTools(client, { server: "wx" });
  try {
    const agent = new Agent({
      tools: set.tools,
      planner: callsPlanner([["wx__get_weather", { city: "Oslo" }]]),
      policy: grant("wx"),
    });
    const state = await agent.run("weather");
    assert.equal(state.answer, "sunny");
    assert.deepEqual(called, ["get.weather:Oslo"]);
  } finally {
    await set.close();
    await client.close();
  }
});

test("a tool whose input schema does not compile is left out and named in skipped", async () => {
  const tools = [definition("good"), definition("bad", { n: { type: "no-such-type" } })];
  const client = await clientOf(listingServer(tools, () => ({ content: [] })));
  const set = await mcpTools(client, { server: "s" });
  try {
    assert.deepEqual(
      set.tools.map((item) => item.name),
      ["s__good"],
    );
    assert.deepEqual(set.skipped, ["bad"]);
    assert.match(set.skippedReasons.bad!, /bad/);
  } finally {
    await set.close();
    await client.close();
  }
});

test("input schemas in draft-07 and in 2020-12 both validate a call's arguments", async () => {
  const draft07 = {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { n: { $ref: "#/definitions/count" } },
    required: ["n"],
    definitions: { count: { type: "integer", minimum: 1 } },
  };
  const draft2020 = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false } },
    required: ["pair"],
  };
  const tools = [
    { name: "old", inputSchema: draft07 as never },
    { name: "new", inputSchema: draft2020 as never },
  ];
  const client = await clientOf(listingServer(tools, (name) => ({ content: [{ type: "text", text: name }] })));
  const set = await mcpTools(client, { server: "s" });
  try {
    assert.deepEqual(set.skipped, []);
    const outcomes = async (calls: [string, Record<string, unknown>][]) => {
      const agent = new Agent({ tools: set.tools, planner: callsPlanner(calls as never), policy: grant("s") });
      const state = await agent.run("check");
      return state.steps.filter((step) => step.decision.type === "act").map((step) => step.outcome);
    };
    assert.deepEqual(
      await outcomes([
        ["s__old", { n: 0 }],
        ["s__old", { n: 2 }],
        ["s__new", { pair: ["a", "b"] }],
        ["s__new", { pair: ["a", 1] }],
      ]),
      ["invalid_arguments", "executed", "invalid_arguments", "executed"],
    );
  } finally {
    await set.close();
    await client.close();
  }
});

test("trusted annotations map to effects with the spec's defaults, and contradictory hints read the riskier way", async () => {
  const tools = [
    definition("a", {}, { annotations: { readOnlyHint: true, openWorldHint: false } }),
    definition("b", {}, { annotations: { readOnlyHint: true } }),
    definition("c", {}, { annotations: { openWorldHint: false, idempotentHint: true } }),
    definition("d", {}, { annotations: { openWorldHint: false } }),
    definition("e", {}),
    definition("f", {}, { annotations: { readOnlyHint: true, destructiveHint: true, openWorldHint: false } }),
    definition("g", {}, { annotations: { idempotentHint: true } }),
  ];
  const client = await clientOf(listingServer(tools, () => ({ content: [] })));
  const set = await mcpTools(client, { server: "s", trust: "trusted", overrides: { g: { effect: "write" } } });
  try {
    assert.deepEqual(
      set.tools.map((item) => [item.definition?.name, item.effect, item.idempotent]),
      [
        ["a", "read", true],
        ["b", "external", false],
        ["c", "write", true],
        ["d", "write", false],
        ["e", "external", false],
        ["f", "write", false],
        ["g", "write", false],
      ],
    );
  } finally {
    await set.close();
    await client.close();
  }
});

test("a result's content parts: text as text, other parts described, structuredContent when present", async () => {
  const results: Record<string, unknown> = {
    one: { content: [{ type: "text", text: "hello" }] },
    many: {
      content: [
        { type: "text", text: "a picture:" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "resource_link", uri: "file:///x", name: "x" },
      ],
    },
    structured: { content: [{ type: "text", text: "{}" }], structuredContent: { total: 3 } },
  };
  const tools = Object.keys(results).map((name) => definition(name));
  const client = await clientOf(listingServer(tools, (name) => results[name] as never));
  const set = await mcpTools(client, { server: "s" });
  try {
    const agent = new Agent({
      tools: set.tools,
      planner: callsPlanner([
        ["s__one", {}],
        ["s__many", {}],
        ["s__structured", {}],
      ]),
      policy: grant("s"),
    });
    const state = await agent.run("read");
    assert.deepEqual(
      state.steps.slice(0, 3).map((step) => step.result),
      [
        "hello",
        [
          "a picture:",
          { type: "image", mimeType: "image/png", bytes: 3, note: "Binary data not passed on." },
          { type: "resource_link", uri: "file:///x", name: "x" },
        ],
        { total: 3 },
      ],
    );
  } finally {
    await set.close();
    await client.close();
  }
});

test("isError: true is a tool_error whose message the planner sees", async () => {
  const client = await clientOf(
    listingServer([definition("fail")], () => ({ isError: true, content: [{ type: "text", text: "no such order" }] })),
  );
  const set = await mcpTools(client, { server: "s" });
  try {
    const agent = new Agent({ tools: set.tools, planner: callsPlanner([["s__fail", {}]]), policy: grant("s") });
    const state = await agent.run("fail");
    assert.equal(state.steps[0]?.outcome, "tool_error");
    assert.equal(state.steps[0]?.error?.code, "tool_error");
    assert.match(state.steps[0]?.error?.message ?? "", /no such order/);
  } finally {
    await set.close();
    await client.close();
  }
});

test("a server that answers a call with garbage is a tool_error with code mcp_failed", async () => {
  const client = await garbledClient([definition("odd")], { content: "not a list", isError: "maybe" });
  const set = await mcpTools(client, { server: "s" });
  try {
    const agent = new Agent({ tools: set.tools, planner: callsPlanner([["s__odd", {}]]), policy: grant("s") });
    const state = await agent.run("odd");
    assert.equal(state.status, "completed");
    assert.equal(state.steps[0]?.outcome, "tool_error");
    assert.equal(state.steps[0]?.error?.code, "mcp_failed");
  } finally {
    await set.close();
    await client.close();
  }
});

test("a server that hangs past timeoutMs is a tool_error with code mcp_failed, not a hung run", async () => {
  let aborted = false;
  const client = await clientOf(
    listingServer([definition("hang")], (_name, _args, signal) => {
      return new Promise((_resolve, reject) => {
        signal.addEventListener("abort", () => {
          aborted = true;
          reject(new Error("cancelled"));
        });
      });
    }),
  );
  const set = await mcpTools(client, { server: "s", timeoutMs: 1_000 });
  try {
    const agent = new Agent({ tools: set.tools, planner: callsPlanner([["s__hang", {}]]), policy: grant("s") });
    const state = await agent.run("hang");
    assert.equal(state.status, "completed");
    assert.equal(state.steps[0]?.outcome, "tool_error");
    assert.equal(state.steps[0]?.error?.code, "mcp_failed");
    assert.match(state.steps[0]?.error?.message ?? "", /timed out/i);
    await eventually(() => aborted, "the server to see the cancel");
  } finally {
    await set.close();
    await client.close();
  }
});
