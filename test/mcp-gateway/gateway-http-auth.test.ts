import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { bin } from "../cli/cli-helpers.js";
import { TEST_TOKEN, bearer, heldSetup, httpTransport, leash, readOrEmpty, runs, serveHttpGateway } from "./support.js";
import type { Setup } from "./support.js";

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** A raw POST of `initialize` with these headers: its status, WWW-Authenticate and session id. */
async function initializeWith(
  port: number,
  headers: Record<string, string>,
): Promise<{ status: number; challenge: string | null; session: string | null }> {
  const answer = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: initialize,
  });
  await answer.body?.cancel();
  return {
    status: answer.status,
    challenge: answer.headers.get("www-authenticate"),
    session: answer.headers.get("mcp-session-id"),
  };
}

test("over --http, a request without a bearer token or with a wrong one is 401 with WWW-Authenticate: Bearer; the token file's token works", async () => {
  const at = await heldSetup({ approvers: ["alice"] }, { approval: { waitMs: 300, pollMs: 50 } });
  const gateway = await serveHttpGateway(at);
  try {
    for (const headers of [
      {},
      bearer("wrong-token-wrong-token"),
      bearer(`${TEST_TOKEN}x`),
      bearer(TEST_TOKEN.slice(0, -1)),
      { authorization: `Basic ${TEST_TOKEN}` },
      { authorization: TEST_TOKEN },
      { authorization: "Bearer " },
    ]) {
      const refused = await initializeWith(gateway.port, headers);
      assert.equal(refused.status, 401, JSON.stringify(headers));
      assert.match(refused.challenge ?? "", /^Bearer\b/);
      assert.equal(refused.session, null);
    }
    // GET and DELETE are checked as well.
    const get = await fetch(`http://127.0.0.1:${gateway.port}/mcp`, { headers: { accept: "text/event-stream" } });
    assert.equal(get.status, 401);
    await get.body?.cancel();
    const ok = await initializeWith(gateway.port, bearer());
    assert.equal(ok.status, 200);
    assert.match(ok.session ?? "", /./);
    // A session's id without the token is refused too.
    const ridden = await fetch(`http://127.0.0.1:${gateway.port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": ok.session!,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
    });
    assert.equal(ridden.status, 401);
    await ridden.body?.cancel();
    const client = new Client({ name: "good", version: "1" });
    await client.connect(httpTransport(gateway.port));
    assert.deepEqual(
      (await client.listTools()).tools.map((item) => item.name),
      ["held__hold"],
    );
    await client.close();
    assert.deepEqual(await runs(at), []);
  } finally {
    await gateway.stop();
  }
});

/** Starts `leash mcp serve --http 0` as it is configured (no token file added); resolves with its exit code and stderr. */
async function serveAsConfigured(at: Setup): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bin, "mcp", "serve", "--config", at.config, "--http", "0", "--db", at.db], {
    cwd: at.dir,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stderr };
}

test("over --http, without a token file and with no approver in the store, the gateway does not start", async () => {
  const at = await heldSetup({ approvers: ["alice"] });
  const refused = await serveAsConfigured(at);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /--http requires a credential/);
  assert.match(refused.stderr, /leash approvers add NAME/);
  // A token file that is empty is refused too.
  const config = JSON.parse(readFileSync(at.config, "utf8")) as Record<string, unknown>;
  writeFileSync(`${at.dir}/empty.token`, "  \n");
  writeFileSync(at.config, JSON.stringify({ ...config, http: { tokenFile: "empty.token" } }));
  const empty = await serveAsConfigured(at);
  assert.equal(empty.code, 2, empty.stderr);
  assert.match(empty.stderr, /http\.tokenFile/);
});

test("over --http, approvers' tokens identify clients: identical calls of two clients are two runs, and a client cannot use another's session", async () => {
  const at = await heldSetup({ approvers: ["alice"] }, { approval: { waitMs: 300, pollMs: 50 } });
  // The store exists once a gateway opened it; then its registry takes approvers.
  await leash(["runs", "--db", at.db], at.dir);
  const stdioGateway = spawn(process.execPath, [bin, "mcp", "serve", "--config", at.config, "--db", at.db], {
    cwd: at.dir,
    stdio: ["pipe", "ignore", "pipe"],
  });
  stdioGateway.stderr.setEncoding("utf8");
  await new Promise<void>((resolve) =>
    stdioGateway.stderr.on("data", (chunk: string) => chunk.includes("serving") && resolve()),
  );
  stdioGateway.stdin.end();
  await once(stdioGateway, "exit");
  const tokens: Record<string, string> = {};
  for (const name of ["noor", "omar"]) {
    const added = await leash(["approvers", "add", name, "--db", at.db, "--json"], at.dir);
    assert.equal(added.status, 0, added.stderr);
    tokens[name] = (JSON.parse(added.stdout) as { token: string }).token;
  }
  const gateway = await serveHttpGateway(at, false);
  try {
    const ids: string[] = [];
    for (const name of ["noor", "omar"]) {
      const client = new Client({ name, version: "1" });
      await client.connect(httpTransport(gateway.port, tokens[name]));
      const result = await client.callTool({ name: "held__hold", arguments: { n: 7 } });
      ids.push((result.structuredContent as { runId: string }).runId);
      await client.close();
    }
    assert.notEqual(ids[0], ids[1]);
    const listed = await runs(at);
    assert.deepEqual(listed.map((run) => run.status).sort(), ["awaiting_approval", "awaiting_approval"]);
    // The same client calling again joins its own run.
    const again = new Client({ name: "noor-again", version: "1" });
    await again.connect(httpTransport(gateway.port, tokens.noor));
    const joined = await again.callTool({ name: "held__hold", arguments: { n: 7 } });
    assert.equal((joined.structuredContent as { runId: string }).runId, ids[0]);
    await again.close();
    // noor's session is unknown to omar's token.
    const session = await initializeWith(gateway.port, bearer(tokens.noor));
    const other = await fetch(`http://127.0.0.1:${gateway.port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session.session!,
        "mcp-protocol-version": "2025-06-18",
        ...bearer(tokens.omar),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
    });
    assert.equal(other.status, 404);
    await other.body?.cancel();
    assert.equal(readOrEmpty(at.count), "");
  } finally {
    await gateway.stop();
  }
});
