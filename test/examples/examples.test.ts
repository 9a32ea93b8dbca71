// The model examples of examples/ run as a user runs them (tsx, importing the built `leash`): without
// their API key they say so in one line and exit 0; with a key and the SDK's base URL pointed at the
// loopback server of their provider (test/providers/), they drive the whole notes task through the
// real SDK, a pause for approval included, and the server accepts every request as the real API would.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { loadHarness } from "../providers/support/harnesses.js";
import type { ScriptedCall } from "../providers/support/harness.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const tsxLoader = import.meta.resolve("tsx");
const EXAMPLE_TIMEOUT_MS = 120_000;

interface Example {
  file: string;
  adapter: "openaiChat" | "openaiResponses" | "anthropicMessages" | "aiSdkModel";
  key: string;
  baseUrl: string;
  /** What the scripted usage costs at the example's default price. */
  cost: string;
}

const EXAMPLES: Example[] = [
  {
    file: "examples/openai-chat.ts",
    adapter: "openaiChat",
    key: "OPENAI_API_KEY",
    baseUrl: "OPENAI_BASE_URL",
    cost: "0.001025",
  },
  {
    file: "examples/openai-responses.ts",
    adapter: "openaiResponses",
    key: "OPENAI_API_KEY",
    baseUrl: "OPENAI_BASE_URL",
    cost: "0.001025",
  },
  {
    file: "examples/anthropic.ts",
    adapter: "anthropicMessages",
    key: "ANTHROPIC_API_KEY",
    baseUrl: "ANTHROPIC_BASE_URL",
    cost: "0.003740",
  },
  {
    file: "examples/ai-sdk.ts",
    adapter: "aiSdkModel",
    key: "OPENAI_API_KEY",
    baseUrl: "OPENAI_BASE_URL",
    cost: "0.001025",
  },
];

/** Every variable that could point an example at a real provider, or pick its model. */
const PROVIDER_VARIABLES = [
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_AUTH_TOKEN",
  "LEASH_OPENAI_MODEL",
  "LEASH_ANTHROPIC_MODEL",
];

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs an example with tsx, in the repository (so `leash` resolves to this package), with this env. */
function runExample(file: string, extra: Record<string, string>): Promise<Finished> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_NO_WARNINGS: "1" };
  for (const name of PROVIDER_VARIABLES) delete env[name];
  Object.assign(env, extra);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", tsxLoader, file],
      { cwd: root, env, timeout: EXAMPLE_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, stdout, stderr: error !== null && code === null ? `${stderr}\n${error.message}` : stderr });
      },
    );
  });
}

function call(id: string, tool: string, args: unknown): ScriptedCall {
  return { id, tool, arguments: JSON.stringify(args) };
}

const SUMMARY = { title: "summary", text: "The pads arrive Thursday and are paid for." };

for (const example of EXAMPLES) {
  test(`${example.file} says in one line that ${example.key} is not set, and exits 0`, async () => {
    const result = await runExample(example.file, {});
    assert.equal(result.code, 0, `exit code ${result.code}\n${result.stdout}${result.stderr}`);
    const lines = result.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 1, result.stdout);
    assert.match(lines[0] ?? "", new RegExp(`^${example.key} is not set: the ${example.adapter} example`));
  });

  test(`${example.file} runs the notes task through the real SDK against a loopback ${example.adapter} server`, async () => {
    const harness = await loadHarness(example.adapter);
    const server = await harness.start();
    try {
      server.reply(
        {
          type: "answer",
          calls: [call("call_read", "read_notes", {})],
          usage: { input: 1000, output: 50, cacheRead: 400 },
        },
        {
          type: "answer",
          text: "Saving a summary.",
          calls: [call("call_save", "save_note", SUMMARY)],
          usage: { input: 1200, output: 60 },
        },
        { type: "answer", text: "I saved a one-line summary.", usage: { input: 1300, output: 10 } },
      );
      const result = await runExample(example.file, { [example.key]: "loopback-key", [example.baseUrl]: server.url });
      const output = `--- stdout\n${result.stdout}--- stderr\n${result.stderr}`;
      assert.equal(result.code, 0, output);
      assert.deepEqual(server.refusals, [], output);
      assert.equal(server.requests.length, 3, output);
      assert.match(result.stdout, /approval asked: save_note\(.*\); granted by this example/, output);
      assert.match(result.stdout, /status: completed/, output);
      assert.match(result.stdout, /step 0: read_notes\(\{\}\) -> executed/, output);
      assert.match(result.stdout, /step 1: save_note\(.*\) -> executed/, output);
      assert.match(result.stdout, /answer: "I saved a one-line summary\."/, output);
      assert.ok(result.stdout.includes(`saved: ${JSON.stringify([SUMMARY])}`), output);
      // 3,500 input tokens (400 read from the cache) and 120 output tokens, at the default model's price.
      assert.ok(result.stdout.includes(`model calls: 3; tokens: 3620; cost: ${example.cost}`), output);
      assert.match(result.stdout, /audit: the chain verifies/, output);
      // The last request answered both call ids, on the ids the model gave.
      const last = harness.read(server.requests[2]!);
      assert.deepEqual(
        last.results.map((item) => item.callId),
        ["call_read", "call_save"],
      );
    } finally {
      await server.close();
    }
  });
}
