import { test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { Agent, Policy } from "../../src/index.js";
import type { Json } from "../../src/json/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import { linearPatterns } from "../../src/mcp/linear-patterns.js";
import { clientOf, definition, listingServer } from "./servers.js";
import { callsPlanner } from "./support.js";

// A deadline for a test that would otherwise never end, not a measure of it: backtracking through
// these patterns takes minutes to years in ECMAScript's engine, RE2 a few milliseconds.
const HANG_TIMEOUT_MS = 30_000;
const stars = (count: number) => `^${"a*".repeat(count)}$`;
const policy = new Policy({ grantedScopes: ["mcp:s"], allowEffects: ["read"] });

async function listed(tools: ReturnType<typeof definition>[], calls: Json[] = []) {
  const server = listingServer(tools, (_name, args) => {
    calls.push(args as Json);
    return { content: [{ type: "text", text: "ok" }] };
  });
  const client = await clientOf(server);
  const set = await mcpTools(client, {
    server: "s",
    overrides: Object.fromEntries(tools.map((t) => [t.name, { effect: "read" as const }])),
  });
  return { set, close: async () => (await set.close(), await client.close()) };
}

test(
  "a group-free exponential pattern from an SDK server is checked at once: 16 stars on 30 characters, by mcpTools and in a run",
  { timeout: HANG_TIMEOUT_MS },
  async () => {
    const server = new McpServer({ name: "shop", version: "1" });
    const calls: unknown[] = [];
    server.registerTool("find", { inputSchema: { q: z.string().regex(new RegExp(stars(16))) } }, (args) => {
      calls.push(args);
      return { content: [{ type: "text", text: "found" }] };
    });
    const client = await clientOf(server);
    const set = await mcpTools(client, { server: "s", overrides: { find: { effect: "read" } } });
    try {
      assert.deepEqual(set.skipped, []);
      const [find] = set.tools;
      // What models see, the definition and the digest keep the pattern as the server wrote it.
      assert.equal((find?.parameters as { properties: { q: { pattern: string } } }).properties.q.pattern, stars(16));
      const hostile = `${"a".repeat(30)}!`;
      const agent = new Agent({
        tools: set.tools,
        policy,
        planner: callsPlanner([
          ["s__find", { q: hostile }],
          ["s__find", { q: "a".repeat(30) }],
        ]),
      });
      const state = await agent.run("find it");
      assert.equal(state.steps[0]?.outcome, "invalid_arguments");
      assert.match(state.steps[0]?.error?.message ?? "", /must match pattern/);
      assert.equal(state.steps[1]?.outcome, "executed");
      assert.deepEqual(calls, [{ q: "a".repeat(30) }], "only the matching call reached the server");
    } finally {
      await set.close();
      await client.close();
    }
  },
);

test(
  "patternProperties keys and propertyNames patterns from a server are matched in linear time too",
  { timeout: HANG_TIMEOUT_MS },
  async () => {
    const calls: Json[] = [];
    const { set, close } = await listed(
      [
        definition(
          "tag",
          {},
          {
            inputSchema: {
              type: "object",
              patternProperties: { [stars(20)]: { type: "number" } },
              additionalProperties: false,
            },
          },
        ),
        definition("name", {}, { inputSchema: { type: "object", propertyNames: { pattern: stars(20) } } }),
      ],
      calls,
    );
    try {
      assert.deepEqual(set.skipped, []);
      const hostile = `${"a".repeat(40)}!`;
      const agent = new Agent({
        tools: set.tools,
        policy,
        planner: callsPlanner([
          ["s__tag", { [hostile]: 1 }],
          ["s__name", { [hostile]: 1 }],
          ["s__tag", { aaaa: "not a number" }],
          ["s__tag", { aaaa: 4 }],
        ]),
      });
      const state = await agent.run("tag it");
      assert.deepEqual(
        state.steps.slice(0, 4).map((step) => step.outcome),
        ["invalid_arguments", "invalid_arguments", "invalid_arguments", "executed"],
      );
      assert.deepEqual(calls, [{ aaaa: 4 }]);
    } finally {
      await close();
    }
  },
);

test("a server tool whose pattern RE2 cannot match (a backreference, a lookaround) is skipped with the reason; the others stay", async () => {
  const hostile: [string, string][] = [
    ["backreference", "^(a+)\\1$"],
    ["named", "^(?<x>a)\\k<x>$"],
    ["lookahead", "^(?=a)a*$"],
    ["lookbehind", "(?<!b)a"],
    ["huge", "^a{2000}$"],
    ["spaces", "^[\\S]+$"],
  ];
  const { set, close } = await listed([
    ...hostile.map(([name, pattern]) => definition(name, { q: { type: "string", pattern } })),
    definition("keyed", {}, { inputSchema: { type: "object", patternProperties: { "^(?!x)": {} } } }),
    definition("fine", { q: { type: "string", pattern: "^[0-9]{5}$" } }),
  ]);
  try {
    assert.deepEqual(set.skipped, [...hostile.map(([name]) => name), "keyed"]);
    for (const name of set.skipped) {
      assert.match(set.skippedReasons[name] ?? "", /cannot be checked in linear time/, name);
    }
    assert.deepEqual(
      set.tools.map((tool) => tool.name),
      ["s__fine"],
    );
  } finally {
    await close();
  }
});

test("each server pattern is checked as its own, however many tools and servers share the engine", async () => {
  const calls: Json[] = [];
  const { set, close } = await listed(
    [
      definition("zip", { q: { type: "string", pattern: "^[0-9]{5}$" } }),
      definition("word", { q: { type: "string", pattern: "^[a-z]+$" } }),
    ],
    calls,
  );
  try {
    const agent = new Agent({
      tools: set.tools,
      policy,
      planner: callsPlanner([
        ["s__zip", { q: "abc" }],
        ["s__word", { q: "12345" }],
        ["s__zip", { q: "12345" }],
        ["s__word", { q: "abc" }],
      ]),
    });
    const state = await agent.run("check");
    assert.deepEqual(
      state.steps.slice(0, 4).map((step) => step.outcome),
      ["invalid_arguments", "invalid_arguments", "executed", "executed"],
    );
    assert.deepEqual(calls, [{ q: "12345" }, { q: "abc" }]);
  } finally {
    await close();
  }
});

test("a pattern ECMAScript refuses is still refused as a schema that does not compile", async () => {
  const { set, close } = await listed([definition("bad", { q: { type: "string", pattern: "^[a-z" } })]);
  try {
    assert.deepEqual(set.skipped, ["bad"]);
    assert.match(set.skippedReasons.bad ?? "", /compiles/);
  } finally {
    await close();
  }
});

// Patterns as JSON Schema writers use them, and texts that tell ECMAScript's readings apart from
// RE2's defaults (its `.`, `\s` and classes differ), each matched by both engines.
const PATTERNS = [
  ...["^a$", "^[a-z]+$", "^[0-9]{5}$", "^\\d{3}-\\d{4}$", "\\s", "^\\S+$", "^.$", "^.+$", "^[^]$", "[]"],
  ...["^\\w+@\\w+\\.com$", "^\\p{L}+$", "^\\p{Lu}", "\\p{Script=Greek}", "\\p{sc=Latin}", "\\p{gc=Lu}"],
  ...["\\p{General_Category=Letter}", "^\\p{Letter}+$", "^\\P{L}*$", "^[\\p{L}\\d_-]+$", "^\\u00e9$"],
  ...["^\\u{1F600}$", "^\\uD83D\\uDE00$", "^[a-b-c]+$", "^[-a]$", "^[a-]$", "[\\b]", "\\bfoo\\b", "^(?:ab|cd)*$"],
  ...["^(?<word>x+)y$", "^a{2,3}$", "^a{2,}$", "a*?b", "^\\/path\\/$", "^\\.$", "^[.]$", "^[\\^]$", "^[\\]]$"],
  ...["^[[]$", "^\\cJ$", "^\\x41$", "^\\0$", "^\\t\\n\\v\\f\\r$", "^[\\s]+$", "^[^\\s]+$", "^[\\d\\s]+$"],
  ...["^\\p{Any}$", "^\\p{ASCII}+$", "^(a|)$", "^$", "", "^\\$\\{x\\}$", "a|b|", "^[\\u0041-\\u005A]+$"],
  ...["^[😀-😂]$", "^😀+$", "^(?:\\d+(?:\\.\\d*)?)$", "^[^\\n]*$", "é", "^\\D\\W$", "\\B", "^[^a-z]$", "^\\w*$"],
  ...["^[\\w.+-]+@[\\w-]+\\.[\\w.-]+$", "^https?://[^\\s/$.?#].[^\\s]*$", "^[A-Z]{2}-\\d{2,4}$", "(?:)"],
];
const TEXTS = [
  ...["", "a", "aa", "aaa", "abc", "ABC", "12345", "123-4567", " ", "\u00a0", "\ufeff", "\u2028", "\u2029"],
  ...["\r", "\n", "\v", "\t\n\v\f\r", "é", "É", "😀", "😁", "😀😀", "α", "x@y.com", "xxy", "-", "b", "c", "-ab-c"],
  ...["\b", "a foo b", "foo", "/path/", ".", "^", "]", "[", ":", "\0", "A", "AZ", "${x}", "1.5", "1.", "a\nb"],
  ...["é!", "_", "%", "ab", "cdab", "\u3000", "\u0085", "\u180e", "a.b+c@d-e.fg", "https://x.org/a b", "GB-123"],
];

test("RE2 matches as ECMAScript does for the patterns schemas use: anchors, classes, escapes, unicode", () => {
  const differences: string[] = [];
  for (const pattern of PATTERNS) {
    const native = new RegExp(pattern, "u");
    const linear = linearPatterns(pattern, "u");
    for (const text of TEXTS) {
      if (native.test(text) !== linear.test(text))
        differences.push(`${JSON.stringify(pattern)} on ${JSON.stringify(text)}`);
    }
  }
  assert.deepEqual(differences, []);
});
