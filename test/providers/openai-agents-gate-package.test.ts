// The built `leash/openai-agents` subpath, imported by the package's own name as users do (`npm test`
// builds first), and `leashTool` over a function tool made by the SDK's own `tool()`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tool as agentsTool } from "@openai/agents";
import { leashTool } from "../../src/providers/openai-agents/index.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

test("the built leash/openai-agents files import neither @openai/agents nor @openai/agents-core", () => {
  const folder = join(root, "dist", "providers", "openai-agents");
  const files = readdirSync(folder).filter((file) => file.endsWith(".js") || file.endsWith(".d.ts"));
  assert.ok(files.includes("index.js") && files.includes("gate-tools.js"));
  const specifiers = files.flatMap((file) => {
    const code = readFileSync(join(folder, file), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    return [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g)].map(
      (match) => `${file}: ${match[1]}`,
    );
  });
  assert.ok(
    specifiers.some((line) => line.includes("../../errors/")),
    "the reader sees the files' imports",
  );
  assert.deepEqual(
    specifiers.filter((line) => /: @openai\//.test(line)),
    [],
  );
});

test("importing leash/openai-agents loads no package of @openai", () => {
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      "./test/fixtures/trace-imports.mjs",
      "--input-type=module",
      "-e",
      'await import("leash/openai-agents");',
    ],
    { cwd: root, encoding: "utf8" },
  );
  assert.equal(result.status, 0, result.stderr);
  const loaded = result.stderr.split("\n").filter((line) => line.startsWith("loaded "));
  assert.ok(
    loaded.some((line) => line.includes("/node_modules/ajv/")),
    "the probe sees the packages leash does load",
  );
  assert.ok(!loaded.some((line) => line.includes("/@openai/")), "no @openai package is loaded");
});

test("leashTool takes the function tool's JSON Schema and calls its invoke with the session's call id", async () => {
  const seen: unknown[] = [];
  const refund = agentsTool({
    name: "refund",
    description: "Refund an order.",
    parameters: {
      type: "object",
      properties: { order: { type: "string" } },
      required: ["order"],
      additionalProperties: false,
    },
    strict: true,
    errorFunction: null,
    execute: (input, _context, details) => {
      seen.push([input, details?.toolCall?.callId]);
      return `refunded ${(input as { order: string }).order}`;
    },
  });
  const converted = leashTool(refund, { name: "refund", effect: "write", cost: 1 });
  assert.deepEqual(
    [converted.name, converted.description, converted.effect, converted.cost],
    ["refund", "Refund an order.", "write", 1],
  );
  assert.equal(converted.validator.validate({}).valid, false, "the order is required");
  const context = {
    runId: "run-1",
    step: 0,
    principal: undefined,
    signal: new AbortController().signal,
    idempotencyKey: "key-0",
    fencingToken: 1,
  };
  assert.equal(await converted.execute({ order: "42" }, context), "refunded 42");
  assert.deepEqual(seen, [[{ order: "42" }, "key-0"]], "outside a session the call id is the idempotency key");
});

test("leashTool refuses a tool that is not a function tool and an unknown option", () => {
  assert.throws(() => leashTool({ type: "hosted_tool" } as never, { name: "x", effect: "read" }), {
    code: "invalid_tool",
  });
  const lookup = agentsTool({
    name: "lookup",
    description: "",
    parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
    execute: () => "",
  });
  assert.throws(() => leashTool(lookup, { name: "lookup", effect: "read", timeout: 1 } as never), {
    code: "invalid_option",
  });
});
