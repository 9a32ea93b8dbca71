import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { eventually } from "../mcp/support.js";
import { connectGateway, runs, setup, textOf } from "./support.js";

const named = fileURLToPath(new URL("../fixtures/mcp-named-server.mjs", import.meta.url));
const changing = fileURLToPath(new URL("../fixtures/mcp-changing-server.mjs", import.meta.url));

test("behind the gateway, server-filesystem reading an 11 MiB file (over the SDK's stdio cap) fails that call at once; the next call reconnects", async () => {
  const at = await setup({ waitMs: 50_000 });
  await writeFile(path.join(at.files, "big.txt"), "q".repeat(11 * 1024 * 1024));
  await writeFile(path.join(at.files, "a.txt"), "hi");
  const { client } = await connectGateway(at);
  try {
    const big = await client.callTool({
      name: "fs__read_text_file",
      arguments: { path: path.join(at.files, "big.txt") },
    });
    assert.equal(big.isError, true);
    assert.match(textOf(big), /`fs` lost its connection during `read_text_file` \(ReadBuffer exceeded/);
    const small = await client.callTool({
      name: "fs__read_text_file",
      arguments: { path: path.join(at.files, "a.txt") },
    });
    assert.equal(small.isError, undefined);
    assert.equal(textOf(small), "hi");
  } finally {
    await client.close();
  }
});

test("two upstreams whose tool names meet: the second gets a suffix and one warning names both; skipped tools are named on stderr; an untrusted upstream's tools are external", async () => {
  const at = await setup({ waitMs: 50_000 });
  await writeFile(
    at.config,
    JSON.stringify({
      servers: {
        h: { command: process.execPath, args: [named, "H", "_trigger", "!bad"] },
        h_: { command: process.execPath, args: [named, "HU", "trigger"], trust: "untrusted" },
      },
      policy: { grantedScopes: ["mcp:h", "mcp:h_"], allowEffects: ["read"] },
    }),
  );
  const { client, transport } = await connectGateway(at);
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((item) => item.name).sort(), ["h___trigger", "h___trigger_2"]);
    await eventually(() => /serving 2 tools/.test(stderr), "the gateway's serving line");
    assert.match(stderr, /servers\.h: left out the tool `bad`: Its `inputSchema` does not have `type: "object"`/);
    const warnings = stderr.split("\n").filter((line) => line.includes("both make the name"));
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /servers\.h tool `_trigger` and servers\.h_ tool `trigger` both make the name `h___trigger`: the second is offered as `h___trigger_2`/,
    );
    assert.equal(textOf(await client.callTool({ name: "h___trigger", arguments: {} })), "H _trigger");
    // Untrusted: its read-only hint is not believed, so the call is `external`, which this policy refuses.
    const untrusted = await client.callTool({ name: "h___trigger_2", arguments: {} });
    assert.equal(untrusted.isError, true);
    assert.match(textOf(untrusted), /external/);
  } finally {
    await client.close();
  }
});

test("a tool the upstream stopped listing is refused at once, before a run asks anyone to approve it", async () => {
  const at = await setup({ waitMs: 50_000 });
  await writeFile(
    at.config,
    JSON.stringify({
      servers: { ch: { command: process.execPath, args: [changing], overrides: { greet: { effect: "write" } } } },
      policy: { grantedScopes: ["mcp:ch"], allowEffects: ["read", "write"], approvalFor: ["write"] },
      approval: { waitMs: 2_000, pollMs: 50 },
    }),
  );
  const { client } = await connectGateway(at);
  try {
    assert.equal(textOf(await client.callTool({ name: "ch__drop", arguments: {} })), "dropped");
    for (;;) {
      const { tools } = await client.listTools();
      if (!tools.some((item) => item.name === "ch__greet")) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const before = (await runs(at)).length;
    const refused = await client.callTool({ name: "ch__greet", arguments: { name: "ann" } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /no longer lists `ch__greet`/);
    assert.equal((await runs(at)).length, before);
  } finally {
    await client.close();
  }
});
