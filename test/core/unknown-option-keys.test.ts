// Every options object leash takes refuses a key it does not know, naming the key and the known ones,
// before anything is built, read or written: a misspelt option would otherwise silently keep its
// default (`tool({ scope })` would make a tool that needs no scope at all).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import {
  Agent,
  Approval,
  Decision,
  JsonlAuditSink,
  MemoryStore,
  Policy,
  allow,
  isLeashError,
  modelPlanner,
  tool,
} from "../../src/index.js";
import { says as saysSteps, scriptedModel as scripted } from "../../src/testing/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { Worker } from "../../src/worker/index.js";
import { keygen } from "../../src/index.js";

const planner = () => Decision.finish("done");
const lookup = tool({ name: "lookup", execute: () => "page" });
const refused = (code: string, key: string) => (error: unknown) => {
  const { code: got, message } = error as { code?: string; message?: string };
  assert.equal(got, code, message);
  assert.match(message ?? "", new RegExp(`\`${key}\``), "the message names the key");
  assert.match(message ?? "", /known: /, "and the known ones");
  return true;
};

test("new Policy refuses a misspelt option, naming it and the known ones", () => {
  for (const key of ["grantScopes", "allowEffect", "approvalsFor", "mayapprove"]) {
    assert.throws(() => new Policy({ [key]: [] }), refused("invalid_option", key));
  }
  assert.doesNotThrow(() => new Policy({ grantedScopes: [], allowEffects: ["read"], approvalFor: [] }));
});

test("new Agent refuses a misspelt option (polcy, limit), naming it and the known ones", () => {
  for (const key of ["polcy", "limit", "guard", "tool", "auditSink"]) {
    assert.throws(() => new Agent({ tools: [lookup], planner, [key]: {} }), refused("invalid_option", key));
  }
});

test("tool() refuses a misspelt key as invalid_tool: `scope` would make the tool need no scope", () => {
  for (const key of ["scope", "effects", "timeout", "idempotant", "handler"]) {
    assert.throws(
      () => tool({ name: "pay", execute: () => 1, [key]: ["payments:write"] } as never),
      refused("invalid_tool", key),
    );
  }
  const written = {
    name: "pay",
    scopes: ["payments:write"],
    execute() {
      return 1;
    },
  };
  assert.deepEqual(tool(written).scopes, ["payments:write"], "a spec whose execute is a method still builds");
});

test("a guard with a misspelt hook is refused at new Agent; a guard written as a class keeps its state and helpers", () => {
  for (const key of ["beforetool", "before_tool", "afterModle", "beforeTools"]) {
    assert.throws(
      () => new Agent({ tools: [lookup], planner, guards: [{ name: "g", [key]: () => allow() }] }),
      refused("invalid_option", key),
    );
  }
  assert.throws(
    () => new Agent({ tools: [lookup], planner, guards: [{ name: "g", strict: true } as never] }),
    refused("invalid_option", "strict"),
  );
  class Counting {
    name = "counting";
    seen = 0;
    beforeTool() {
      this.seen += 1;
      return this.verdict();
    }
    verdict() {
      return allow();
    }
  }
  assert.doesNotThrow(() => new Agent({ tools: [lookup], planner, guards: [new Counting()] }));
  class Misspelt {
    name = "misspelt";
    beforetool() {
      return allow();
    }
  }
  assert.throws(() => new Agent({ tools: [lookup], planner, guards: [new Misspelt()] }), /did it mean `beforeTool`/);
});

test("run, resume and do options refuse a misspelt key before anything is written", async () => {
  const store = new MemoryStore();
  const agent = new Agent({ tools: [lookup], planner, store });
  await assert.rejects(agent.run("go", { runld: "r1" } as never), refused("invalid_option", "runld"));
  assert.deepEqual(await store.list(), [], "no run was started");
  const state = await agent.run("go", { runId: "r1" });
  await assert.rejects(agent.resume(state.runId, { approval: [] } as never), refused("invalid_option", "approval"));
  const skill = { name: "s", brief: () => "do it" };
  await assert.rejects(agent.do(skill, null, { limit: { maxSteps: 1 } } as never), refused("invalid_option", "limit"));
  assert.equal((await store.list()).length, 1);
});

test("skill objects, the checkpoint option and Approval options refuse a misspelt key", () => {
  assert.throws(
    () => new Agent({ tools: [lookup], planner, skills: [{ name: "s", brief: () => "x", ouput: {} } as never] }),
    refused("invalid_skill", "ouput"),
  );
  assert.throws(
    () =>
      new Agent({
        tools: [lookup],
        planner,
        skills: [{ name: "s", brief: () => "x", retry: { attempt: 3 } } as never],
      }),
    refused("invalid_skill", "attempt"),
  );
  const { signerKey } = keygen("example.com/leash");
  assert.throws(
    () =>
      new Agent({
        tools: [lookup],
        planner,
        store: new MemoryStore(),
        checkpoint: { key: signerKey, origin: "example.com/leash", evry: 5 } as never,
      }),
    refused("invalid_option", "evry"),
  );
  assert.throws(
    () => new Approval("a".repeat(64), { granted: true, approver: "noor", notes: "ok" } as never),
    refused("invalid_option", "notes"),
  );
});

test("stores, the JSONL sink and the worker refuse a misspelt option", () => {
  const folder = mkdtempSync(join(tmpdir(), "leash-options-"));
  assert.throws(
    () => new SqliteStore(join(folder, "a.db"), { busyTimeout: 10 } as never),
    refused("invalid_option", "busyTimeout"),
  );
  assert.throws(
    () => new JsonlAuditSink(join(folder, "a.jsonl"), { fsynk: "always" } as never),
    refused("invalid_option", "fsynk"),
  );
  assert.throws(
    () => new PostgresStore({ connectionString: "postgres://x", shema: "s" } as never),
    refused("invalid_option", "shema"),
  );
  assert.throws(
    () => new PostgresStore({ connectionString: "postgres://x" }, { timeout: {} } as never),
    refused("invalid_option", "timeout"),
  );
  const agent = new Agent({ tools: [lookup], planner });
  assert.throws(
    () => new Worker({ agent, store: new MemoryStore(), pollms: 10 } as never),
    refused("invalid_option", "pollms"),
  );
});

test("a key that would draw text is shown quoted, not raw", () => {
  assert.throws(
    () => new Policy({ "x\nknown: everything": 1 } as never),
    (error: Error) => !error.message.includes("\nknown: everything"),
  );
});

test("mcpTools options and overrides, adapters' options and scripted steps refuse a misspelt key", async () => {
  const { mcpTools } = await import("../../src/mcp/index.js");
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const server = new McpServer({ name: "s", version: "1" });
  server.registerTool("t", { inputSchema: {} }, () => ({ content: [] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  try {
    await assert.rejects(mcpTools(client, { server: "s", scope: ["x"] } as never), refused("invalid_option", "scope"));
    await assert.rejects(
      mcpTools(client, { server: "s", overrides: { t: { efect: "read" } } } as never),
      refused("invalid_option", "efect"),
    );
  } finally {
    await client.close();
  }
  const { openaiChat } = await import("../../src/providers/openai/index.js");
  const { anthropicMessages } = await import("../../src/providers/anthropic/index.js");
  const fakeOpenAI = { chat: { completions: { create: () => ({}) } } };
  assert.throws(
    () => openaiChat(fakeOpenAI as never, { model: "m", streaming: true } as never),
    refused("invalid_option", "streaming"),
  );
  const fakeAnthropic = { messages: { create: () => ({}) } };
  assert.throws(
    () => anthropicMessages(fakeAnthropic as never, { model: "m", maxTokens: 10, max_tokens: 5 } as never),
    refused("invalid_option", "max_tokens"),
  );
  const { says, scriptedModel } = await import("../../src/testing/index.js");
  assert.throws(
    () => says.text("hi", { usgae: { inputTokens: 1, outputTokens: 1 } } as never),
    refused("invalid_option", "usgae"),
  );
  assert.throws(() => says.tool("t", {}, { ID: "x" } as never), refused("invalid_option", "ID"));
  assert.throws(() => scriptedModel({ nmae: "m" } as never, says.text("hi")), refused("invalid_option", "nmae"));
});

test("the gateway config refuses an unknown field in every part, a tool override's included", async () => {
  const { checkGatewayConfig, GATEWAY_CONFIG_FIELDS } = await import("../../src/gateway/gateway-config.js");
  const base = { servers: { s: { command: "node" } } };
  const cases: [object, string][] = [
    [{ ...base, polcy: {} }, "polcy"],
    [{ ...base, policy: { allowEffect: ["read"] } }, "allowEffect"],
    [{ servers: { s: { command: "node", scope: ["x"] } } }, "scope"],
    [{ servers: { s: { command: "node", overrides: { t: { efect: "read" } } } } }, "efect"],
  ];
  for (const [config, key] of cases) {
    assert.throws(() => checkGatewayConfig(config, "gateway.json", "/"), new RegExp(`unknown field \`${key}\``));
  }
  assert.ok(GATEWAY_CONFIG_FIELDS.policy.includes("grantedScopes"), "the known fields are one list per part");
});

test("options whose keys cannot be listed are refused as unreadable, not let through", () => {
  const hostile = new Proxy(
    {},
    {
      ownKeys: () => {
        throw new Error("no keys for you");
      },
    },
  );
  assert.throws(() => new Policy(hostile), { code: "invalid_option" });
  assert.throws(() => new Approval("a".repeat(64), hostile as never), { code: "invalid_option" });
});

test("modelPlanner and a price refuse an unknown key: a misspelt price would make every model call free", () => {
  const model = scripted(saysSteps.text("done"));
  assert.throws(
    () => modelPlanner({ model, prize: { input: 10, output: 30 } } as never),
    (error: unknown) => isLeashError(error, "invalid_option") && /prize/.test((error as Error).message),
  );
  assert.throws(
    () => modelPlanner({ model, price: { input: 10, output: 30, cachedRead: 1 } as never }),
    (error: unknown) => isLeashError(error, "invalid_option") && /cachedRead/.test((error as Error).message),
  );
  assert.equal(typeof modelPlanner({ model, price: { input: 10, output: 30, cacheRead: 1 } }), "function");
});
