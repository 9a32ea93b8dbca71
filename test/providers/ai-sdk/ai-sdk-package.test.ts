// The built `leash/ai-sdk` subpath, imported by the package's own name as users do (`npm test` builds
// first): it drives an AI SDK model object and loads no AI SDK package itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MockLanguageModelV3 } from "ai/test";
import { generated } from "./mock.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));

test("the built leash/ai-sdk subpath exports aiSdkModel and drives an AI SDK mock model", async () => {
  const { aiSdkModel } = await import("leash/ai-sdk");
  const model = new MockLanguageModelV3({ doGenerate: generated([{ type: "text", text: "Hello." }]) });
  const client = aiSdkModel(model, { price: { input: 1, output: 2 } });
  const response = await client.generate(
    { system: "Be brief.", messages: [{ role: "user", content: "Hi." }], tools: [] },
    { signal: new AbortController().signal },
  );
  assert.equal(response.text, "Hello.");
  assert.equal(client.name, "mock-provider:mock-model-id");
});

test("importing leash/ai-sdk loads neither ai nor any @ai-sdk package", () => {
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      "./test/fixtures/trace-imports.mjs",
      "--input-type=module",
      "-e",
      'await import("leash"); await import("leash/ai-sdk");',
    ],
    { cwd: root, encoding: "utf8" },
  );
  assert.equal(result.status, 0, result.stderr);
  const loaded = result.stderr.split("\n").filter((line) => line.startsWith("loaded "));
  assert.ok(
    loaded.some((line) => line.includes("/node_modules/ajv/")),
    "the probe sees the packages leash does load",
  );
  for (const sdk of ["/node_modules/ai/", "/@ai-sdk/", "/openai/", "/@anthropic-ai/"])
    assert.ok(!loaded.some((line) => line.includes(sdk)), `importing leash/ai-sdk does not load ${sdk}`);
});
