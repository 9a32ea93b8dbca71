import { resolve } from "node:path";
import { CliError } from "../cli/cli-error.js";
import type { StoreLocation } from "../cli/common-options.js";
import { importAgentModule } from "../cli/load-agent.js";
import type { AuditSink, Guard, RunStore } from "../index.js";
import { SqliteStore } from "../stores/sqlite/index.js";
import { Gateway } from "./gateway.js";
import type { GatewayConfig } from "./gateway-config.js";
import { gatewayServer, serveHttp } from "./gateway-server.js";
import { StdioLines } from "./stdio-lines.js";
import { startUpstreams } from "./upstreams.js";
import type { Upstreams } from "./upstreams.js";

/** How `leash mcp serve` was asked to run. */
export interface ServeOptions {
  config: GatewayConfig;
  location: StoreLocation;
  agentPath?: string;
  httpPort?: number;
  version: string;
}

type Store = RunStore & AuditSink;

/** Opens (and creates, the first time) the gateway's store. */
async function openStore(location: StoreLocation): Promise<Store> {
  if (location.kind === "sqlite") return new SqliteStore(resolve(location.db));
  const { PostgresStore } = await import("../stores/postgres/index.js");
  return new PostgresStore({ connectionString: location.db, schema: location.schema });
}

/** The guards of the app's module (`export const guards = [...]`), if a module is given. */
async function loadGuards(path: string | undefined): Promise<Guard[]> {
  if (path === undefined) return [];
  const module = await importAgentModule(path);
  const guards: unknown = await module.guards;
  if (guards === undefined) return [];
  if (!Array.isArray(guards))
    throw new CliError("invalid_agent_module", `${path} exports \`guards\` that is not an array of guards.`);
  return guards as Guard[];
}

function say(line: string): void {
  process.stderr.write(`leash mcp serve: ${line}\n`);
}

/**
 * Runs the gateway until its client goes away (stdio: stdin ends) or the process is told to stop:
 * opens the store, starts the upstream servers, then serves while it recovers the runs cut by a crash
 * (in the background: an idempotent call started again may take its time).
 */
export async function serveGateway(options: ServeOptions): Promise<void> {
  const guards = await loadGuards(options.agentPath);
  const store = await openStore(options.location);
  let upstreams: Upstreams | undefined;
  try {
    upstreams = await startUpstreams(options.config.servers);
    const gateway = new Gateway(options.config, store, upstreams.tools, guards, options.location.args, upstreams);
    void gateway
      .recover((state) => say(`recovered run ${state.runId} after a stop: it is now ${state.status}.`))
      .then(({ recovered, left }) =>
        say(
          `recovery done: ${recovered} run(s) cut by a stop recovered, left ${left} live run(s) of other gateways alone.`,
        ),
      )
      .catch((error: unknown) => say(`could not recover the runs cut by a stop: ${(error as Error).message}`));
    const stopped = new Promise<void>((done) => {
      process.once("SIGTERM", done);
      process.once("SIGINT", done);
      if (options.httpPort === undefined) process.stdin.once("end", done);
    });
    if (options.httpPort === undefined) {
      const server = gatewayServer(gateway, upstreams.listed, options.version);
      const closed = new Promise<void>((done) => {
        const previous = server.onclose;
        server.onclose = () => {
          previous?.();
          done();
        };
      });
      await server.connect(new StdioLines(options.config.maxMessageBytes, say));
      say(`serving ${gateway.tools.length} tools on stdio; store ${options.location.label}.`);
      await Promise.race([closed, stopped]);
      await server.close().catch(() => undefined);
    } else {
      const { http, port } = await serveHttp(
        gateway,
        upstreams.listed,
        options.version,
        options.httpPort,
        options.config,
      );
      say(`serving ${gateway.tools.length} tools at http://127.0.0.1:${port}/mcp; store ${options.location.label}.`);
      await stopped;
      http.closeAllConnections();
      await new Promise((done) => http.close(done));
    }
  } finally {
    await upstreams?.close();
    await store.close().catch(() => undefined);
  }
}
