import { resolve } from "node:path";
import { LeashError } from "../errors/leash-error.js";
import { listSummaries } from "../stores/list-summaries.js";
import type { StoreLocation } from "../operate/store-location.js";
import { importAgentModule } from "../operate/load-agent.js";
import type { AuditSink } from "../audit/audit-sink.js";
import type { Guard } from "../guards/guard.js";
import type { RunStore } from "../stores/run-store.js";
import { SqliteStore } from "../stores/sqlite/index.js";
import { Gateway } from "./gateway.js";
import { openGatewayClaims } from "./gateway-claims.js";
import type { GatewayClaims } from "./gateway-claims.js";
import type { GatewayConfig } from "./gateway-config.js";
import { serveHttp } from "./gateway-http.js";
import { openHttpCredential } from "./gateway-credential.js";
import type { HttpCredential } from "./gateway-credential.js";
import { RUN_PREFIX } from "./gateway-runs.js";
import { gatewayServer } from "./gateway-server.js";
import { StdioLines } from "./stdio-lines.js";
import { startNotifier } from "../notify/deliverer.js";
import type { Notifier } from "../notify/deliverer.js";
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
    throw new LeashError("invalid_agent_module", `${path} exports \`guards\` that is not an array of guards.`);
  return guards as Guard[];
}

function say(line: string): void {
  process.stderr.write(`leash mcp serve: ${line}\n`);
}

/**
 * Stops taking calls and waits for those in flight, at most `shutdownMs`. Past it the process exits at
 * once, with code 1, as if it had crashed: closing the upstreams under a call would record the call as
 * failed, while a run left `running` is recovered by the next start (see the guide).
 */
async function stopCalls(gateway: Gateway, ms: number, why: string): Promise<void> {
  say(`stopping (${why}): new calls are refused, waiting calls answered; up to ${ms} ms for the calls in flight.`);
  const { ended, left } = await gateway.stop(ms);
  if (!ended) {
    say(`${left} call(s) still in flight after shutdownMs (${ms} ms): exiting; the next start recovers their runs.`);
    // Status 1, as a crash ends the process: the runs left running are recovered by the next start.
    process.exit(1);
  }
  // The MCP server sends each ended call's answer in callbacks queued behind it: let them run first.
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs the gateway until it is told to stop (SIGTERM, SIGINT, or stdin's end on stdio): opens the
 * store, starts the upstream servers, then serves while it recovers the runs cut by a crash (in the
 * background: an idempotent call started again may take its time). At a stop it refuses new calls,
 * answers the calls that wait for a person, lets the calls being executed finish (at most the
 * config's `shutdownMs`), then closes the sessions, the upstreams and the store.
 */
export async function serveGateway(options: ServeOptions): Promise<void> {
  const guards = await loadGuards(options.agentPath);
  const store = await openStore(options.location);
  let upstreams: Upstreams | undefined;
  let claims: GatewayClaims | undefined;
  let credential: HttpCredential | undefined;
  let notifier: Notifier | undefined;
  try {
    upstreams = await startUpstreams(options.config.servers, say);
    // Which gateway drives which run, beside the runs (a first read makes the store's schema).
    await listSummaries(store, { status: "running", runIdPrefix: RUN_PREFIX, limit: 1 });
    // The HTTP transport is refused without a credential: any local process could call it.
    if (options.httpPort !== undefined)
      credential = await openHttpCredential(options.config.httpAuth, options.location, say);
    claims = await openGatewayClaims(options.location);
    await claims.start();
    // The outbox's webhooks, on their own timer: a call never waits on a receiver.
    if (options.config.notify !== undefined)
      notifier = await startNotifier(store, {
        ...options.config.notify,
        logger: { info: say, warn: (line) => say(`webhook: ${line}`), error: (line) => say(`webhook: ${line}`) },
      });
    const gateway = new Gateway(
      options.config,
      store,
      upstreams.tools,
      guards,
      options.location.args,
      upstreams,
      claims,
    );
    void gateway
      .recover((state) => say(`recovered run ${state.runId} after a stop: it is now ${state.status}.`))
      .then(({ recovered, left }) =>
        say(
          `recovery done: ${recovered} run(s) cut by a stop recovered, left ${left} live run(s) of other gateways alone.`,
        ),
      )
      .catch((error: unknown) => say(`could not recover the runs cut by a stop: ${(error as Error).message}`));
    const stopped = new Promise<string>((done) => {
      const signalled = (why: string) => (): void => {
        // One signal stops (or, after stdin's end, changes nothing); a second meets no listener and
        // ends the process at once.
        process.off("SIGTERM", onTerm).off("SIGINT", onInt);
        done(why);
      };
      const onTerm = signalled("SIGTERM");
      const onInt = signalled("SIGINT");
      process.once("SIGTERM", onTerm).once("SIGINT", onInt);
      if (options.httpPort === undefined) process.stdin.once("end", () => done("stdin ended"));
    });
    const { shutdownMs } = options.config;
    if (options.httpPort === undefined) {
      const server = gatewayServer(gateway, upstreams.listed, options.version);
      // A client gone (stdout's pipe closed) while calls finish: their answers have nowhere to go.
      process.stdout.on("error", () => undefined);
      await server.connect(new StdioLines(options.config.maxMessageBytes, say));
      say(`serving ${gateway.tools.length} tools on stdio; store ${options.location.label}.`);
      await stopCalls(gateway, shutdownMs, await stopped);
      await server.close().catch(() => undefined);
    } else {
      const served = await serveHttp(
        gateway,
        upstreams.listed,
        options.version,
        options.httpPort,
        options.config,
        credential as HttpCredential,
      );
      say(
        `serving ${gateway.tools.length} tools at http://127.0.0.1:${served.port}/mcp; store ${options.location.label}; clients need a bearer token: ${(credential as HttpCredential).label}.`,
      );
      await stopCalls(gateway, shutdownMs, await stopped);
      await served.close();
    }
    say("stopped.");
  } finally {
    await notifier?.stop();
    await upstreams?.close();
    await claims?.close(true).catch(() => undefined);
    await credential?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
  }
}
