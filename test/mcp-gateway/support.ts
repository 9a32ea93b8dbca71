import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { StreamableHTTPClientTransportOptions } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { bin, requireBuiltBin } from "../cli/cli-helpers.js";
import { tempFolder } from "../mcp/support.js";

const require = createRequire(import.meta.url);
const run = promisify(execFile);
const heldServer = fileURLToPath(new URL("../fixtures/mcp-held-server.mjs", import.meta.url));
const slowServer = fileURLToPath(new URL("../fixtures/mcp-slow-server.mjs", import.meta.url));

/** A folder for one test: the files server-filesystem may touch, the store, the config. */
export interface Setup {
  dir: string;
  files: string;
  db: string;
  config: string;
}

/** Writes a gateway config in front of server-filesystem (trusted) with writes under approval by alice. */
export async function setup(
  approval: { waitMs: number; pollMs?: number; elicitAs?: string; elicitationApproves?: boolean; inbox?: string },
  approvers: string[] = ["alice"],
): Promise<Setup> {
  const dir = await tempFolder();
  const files = path.join(dir, "files");
  const { mkdirSync } = await import("node:fs");
  mkdirSync(files);
  const config = path.join(dir, "gateway.json");
  const server = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
  writeFileSync(
    config,
    JSON.stringify({
      servers: { fs: { command: process.execPath, args: [server, files] } },
      policy: { grantedScopes: ["mcp:fs"], allowEffects: ["read", "write"], approvers },
      approval: { pollMs: 100, ...approval },
    }),
  );
  return { dir, files, db: path.join(dir, "runs.db"), config };
}

/**
 * A gateway config in front of the held server alone: its `hold` (a write) adds a line to the file
 * `count` as it starts, then answers once the file `release` exists. `policy` says who approves (or
 * that nobody is asked); `rest` is the config's other keys.
 */
export async function heldSetup(
  policy: { approvers: string[] } | { approvalFor: string[] },
  rest: Record<string, unknown> = {},
): Promise<Setup & { count: string; release: string }> {
  const at = await setup({ waitMs: 120_000 });
  const count = path.join(at.dir, "count");
  const release = path.join(at.dir, "release");
  writeFileSync(
    at.config,
    JSON.stringify({
      servers: { held: { command: process.execPath, args: [heldServer, count, release] } },
      policy: { grantedScopes: ["mcp:held"], allowEffects: ["read", "write"], ...policy },
      ...rest,
    }),
  );
  return { ...at, count, release };
}

/**
 * A gateway config in front of the slow server alone, with no approval asked: its `slow` (not
 * idempotent) writes its process id to the file `pidFile`, then never answers. `rest` is the config's
 * other keys.
 */
export async function slowSetup(rest: Record<string, unknown> = {}): Promise<Setup & { pidFile: string }> {
  const at = await setup({ waitMs: 120_000 });
  const pidFile = path.join(at.dir, "slow.pid");
  writeFileSync(
    at.config,
    JSON.stringify({
      servers: { slow: { command: process.execPath, args: [slowServer, pidFile] } },
      policy: { grantedScopes: ["mcp:slow"], allowEffects: ["read", "write", "external"], approvalFor: [] },
      ...rest,
    }),
  );
  return { ...at, pidFile };
}

/** A file's text, or "" while it does not exist yet. */
export function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** The SDK's own Client, connected over stdio to `leash mcp serve` (the built bin) in a child process. */
export async function connectGateway(
  at: Setup,
  options: string[] = ["--db", at.db],
  client: Client = new Client({ name: "gateway-test", version: "1" }),
): Promise<{ client: Client; transport: StdioClientTransport }> {
  requireBuiltBin();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "serve", "--config", at.config, ...options],
    cwd: at.dir,
    stderr: "pipe",
  });
  await client.connect(transport);
  return { client, transport };
}

/** Runs `leash ...args` in a child process, without blocking this one. */
export async function leash(args: string[], cwd: string): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd, timeout: 60_000 });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** The runs in the store, as `leash runs --json` lists them. */
export async function runs(at: Setup, db: string[] = ["--db", at.db]): Promise<{ runId: string; status: string }[]> {
  const listed = await leash(["runs", ...db, "--json"], at.dir);
  if (listed.status !== 0) throw new Error(`leash runs failed: ${listed.stderr}`);
  return (JSON.parse(listed.stdout) as { runs: { runId: string; status: string }[] }).runs;
}

/** The store's first run once it is no longer `running` (a restarted gateway's recovery ends it), waiting a minute at most. */
export async function firstRunOnceEnded(at: Setup): Promise<{ runId: string; status: string } | undefined> {
  const end = Date.now() + 60_000;
  let run = (await runs(at))[0];
  while (run?.status === "running" && Date.now() < end) run = (await runs(at))[0];
  return run;
}

/** The text of a tool result's first content part. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? "").join("\n");
}

/** Resolves, with the run id, the first time the gateway says a call waits for a person (a progress notification). */
export function waitingSignal(): { onprogress: (progress: { message?: string }) => void; waiting: Promise<string> } {
  let resolve!: (runId: string) => void;
  const waiting = new Promise<string>((done) => (resolve = done));
  return {
    onprogress: (progress) => {
      const runId = /leash approve (\S+)/.exec(progress.message ?? "")?.[1];
      if (runId !== undefined) resolve(runId);
    },
    waiting,
  };
}

/** The bearer token of the token file {@link withTokenFile} names in a config. */
export const TEST_TOKEN = "leash-gateway-test-token-3f9a1c7e";

/** The `Authorization` header of {@link TEST_TOKEN} (or of `token`). */
export function bearer(token: string = TEST_TOKEN): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/**
 * Adds `http.tokenFile` (a file holding {@link TEST_TOKEN}, mode 600) and `http.client` to the setup's
 * config, unless its `http` names a token file already (or `null` is given: no credential).
 */
export function withTokenFile(at: Setup, client = "test-client"): void {
  const config = JSON.parse(readFileSync(at.config, "utf8")) as { http?: Record<string, unknown> };
  if (config.http?.tokenFile !== undefined) return;
  const tokenFile = path.join(at.dir, "gateway.token");
  writeFileSync(tokenFile, `${TEST_TOKEN}\n`, { mode: 0o600 });
  config.http = { ...config.http, tokenFile, client };
  writeFileSync(at.config, JSON.stringify(config));
}

/** An SDK Streamable HTTP client transport to a gateway's port that sends `token` as its bearer token. */
export function httpTransport(
  port: number,
  token: string = TEST_TOKEN,
  options: StreamableHTTPClientTransportOptions = {},
): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    ...options,
    requestInit: { ...options.requestInit, headers: bearer(token) },
  });
}

/**
 * Starts `leash mcp serve --http 0` (the built bin) on the setup's SQLite store, with a token file in
 * its config (see {@link withTokenFile}) unless `credential` is false; resolves with its port, its
 * exit and a stop.
 */
export async function serveHttpGateway(
  at: Setup,
  credential = true,
): Promise<{
  port: number;
  exit: Promise<number | null>;
  stop: () => Promise<void>;
  line: (pattern: RegExp) => Promise<void>;
}> {
  requireBuiltBin();
  if (credential) withTokenFile(at);
  const child = spawn(process.execPath, [bin, "mcp", "serve", "--config", at.config, "--http", "0", "--db", at.db], {
    cwd: at.dir,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exit = once(child, "exit").then(([code]) => code as number | null);
  let stderr = "";
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
      for (const waiter of [...waiters])
        if (waiter.pattern.test(stderr)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      const found = /http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (found) resolve(Number(found[1]));
    });
    child.once("exit", () => reject(new Error(`The gateway ended: ${stderr}`)));
  });
  return {
    port,
    exit,
    stop: async () => {
      child.kill("SIGTERM");
      await exit;
    },
    // Resolves once the gateway has said a line that matches, on stderr.
    line: (pattern) =>
      pattern.test(stderr) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ pattern, resolve })),
  };
}
