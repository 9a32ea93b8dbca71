import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { Gateway } from "./gateway.js";
import type { HttpCredential } from "./gateway-credential.js";
import { gatewayServer } from "./gateway-server.js";

/** How long a stopping `--http` gateway lets open connections end before it cuts them. */
const CLOSE_BOUND_MS = 2_000;

/** The one path the gateway serves MCP on; any other is 404. */
const MCP_PATH = "/mcp";

/** A request refused before it reaches the MCP transport: its HTTP status and why. */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Answered as a JSON-RPC error (the transport's own refusals are), not as plain text. */
    readonly jsonRpc = false,
    /** Headers of the refusal (`WWW-Authenticate` on a 401). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Reads a JSON body of at most `limit` bytes; a larger one is refused (413) without being read whole. */
async function body(request: IncomingMessage, limit: number): Promise<unknown> {
  const tooLarge = new Refused(413, `The request body is larger than the gateway's limit of ${limit} bytes.`);
  if (Number(request.headers["content-length"] ?? 0) > limit) throw tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge;
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Refused(400, "The request body is not JSON.");
  }
}

/**
 * Refuses a request a web page may have sent (DNS rebinding): a Host other than this loopback
 * address and port, or an Origin the config does not allow.
 */
function checkCaller(request: IncomingMessage, hosts: readonly string[], origins: readonly string[]): void {
  const host = request.headers.host;
  if (host === undefined || !hosts.includes(host.toLowerCase()))
    throw new Refused(403, `The Host \`${host ?? ""}\` is not this gateway (${hosts.join(" or ")}).`);
  const origin = request.headers.origin;
  if (origin !== undefined && !origins.includes(origin))
    throw new Refused(403, `The Origin \`${origin}\` is not allowed (the config's http.allowedOrigins).`);
}

/** Whether a POST body starts a session: an `initialize` request (alone, or in a batch). */
function initializes(parsed: unknown): boolean {
  return Array.isArray(parsed) ? parsed.some((item) => isInitializeRequest(item)) : isInitializeRequest(parsed);
}

/**
 * The client a request's bearer token belongs to; refused with 401 and `WWW-Authenticate: Bearer`
 * when it has none, or one no credential knows (before its body is read or anything is made).
 */
async function authenticate(request: IncomingMessage, credential: HttpCredential): Promise<string> {
  const header = request.headers.authorization;
  let client: string | undefined;
  try {
    client = await credential.clientOf(header);
  } catch {
    throw new Refused(503, "The gateway could not check the bearer token now; try again.");
  }
  if (client === undefined)
    throw new Refused(
      401,
      header === undefined
        ? "The gateway requires a bearer token: send `Authorization: Bearer <token>`."
        : "The bearer token is not one the gateway knows.",
      false,
      {
        "WWW-Authenticate": `Bearer realm="leash-mcp-gateway"${header === undefined ? "" : ', error="invalid_token"'}`,
      },
    );
  return client;
}

/** One session: its transport, the client it belongs to, the responses still open on it, and the timer that closes it when idle. */
interface Session {
  transport: StreamableHTTPServerTransport;
  /** The client whose bearer token started it: no other client's request reaches it. */
  client: string;
  open: number;
  idle: NodeJS.Timeout | undefined;
}

/** What `serveHttp` needs of the config. */
interface HttpLimits {
  allowedOrigins: readonly string[];
  maxMessageBytes: number;
  sessionIdleMs: number;
}

/** A gateway served over HTTP: the server, its port, the live sessions, and how to stop. */
interface ServedHttp {
  http: HttpServer;
  port: number;
  /** How many MCP sessions (each a transport and a server) are live now. */
  sessions(): number;
  close(): Promise<void>;
}

/**
 * Serves the gateway over Streamable HTTP on 127.0.0.1 only, at `/mcp` only, one MCP session per
 * client (each with its own server on the one gateway). Every request needs a bearer token the
 * `credential` knows (else 401, before anything is read or made); the client it names owns the
 * session it starts, and its calls are runs of its own. A session starts only with a POST of
 * `initialize`; any other request without a known session is refused before anything is made (400,
 * a JSON-RPC error; 404 for an unknown session id). A session with no request open for
 * `sessionIdleMs` is closed. Resolves once listening.
 */
export async function serveHttp(
  gateway: Gateway,
  listed: Map<string, Map<string, McpTool>>,
  version: string,
  port: number,
  limits: HttpLimits,
  credential: HttpCredential,
): Promise<ServedHttp> {
  const sessions = new Map<string, Session>();
  const live = new Set<StreamableHTTPServerTransport>();
  let hosts: string[] = [];
  const idleLater = (session: Session): void => {
    if (session.open > 0) return;
    session.idle = setTimeout(() => void session.transport.close().catch(() => undefined), limits.sessionIdleMs);
    session.idle.unref();
  };
  const track = (session: Session, response: ServerResponse): void => {
    clearTimeout(session.idle);
    session.open += 1;
    response.once("close", () => {
      session.open -= 1;
      if (live.has(session.transport)) idleLater(session);
    });
  };
  const start = async (client: string): Promise<Session> => {
    const session: Session = { transport: undefined as never, client, open: 0, idle: undefined };
    const made = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts: hosts,
      ...(limits.allowedOrigins.length === 0 ? {} : { allowedOrigins: [...limits.allowedOrigins] }),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, session),
    });
    session.transport = made;
    live.add(made);
    made.onclose = () => {
      live.delete(made);
      clearTimeout(session.idle);
      if (made.sessionId !== undefined) sessions.delete(made.sessionId);
    };
    await gatewayServer(gateway, listed, version, client).connect(made);
    return session;
  };
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    checkCaller(request, hosts, limits.allowedOrigins);
    if (new URL(request.url ?? "/", "http://gateway").pathname !== MCP_PATH)
      throw new Refused(404, `Not found: the gateway serves MCP at ${MCP_PATH} only.`);
    const client = await authenticate(request, credential);
    const parsed = request.method === "POST" ? await body(request, limits.maxMessageBytes) : undefined;
    const id = request.headers["mcp-session-id"];
    let session = typeof id === "string" ? sessions.get(id) : undefined;
    // Another client's session is not this client's to use, nor to learn of.
    if (session !== undefined && session.client !== client) session = undefined;
    if (session === undefined) {
      if (typeof id === "string") throw new Refused(404, "Unknown MCP session.", true);
      if (request.method !== "POST" || !initializes(parsed))
        throw new Refused(400, "Bad Request: no MCP session; start one with `initialize`.", true);
      session = await start(client);
      // Not initialized after all (the transport refused it): nothing is left behind.
      response.once("close", () => {
        if (session?.transport.sessionId === undefined) void session?.transport.close().catch(() => undefined);
      });
    }
    track(session, response);
    await session.transport.handleRequest(request, response, parsed);
  };
  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) return;
      const refused = error instanceof Refused ? error : undefined;
      const status = refused?.status ?? 400;
      // A body too large is not read to its end: close the connection rather than drain it.
      // Nor is the body of a request refused for its credential: it is never read.
      if (status === 413 || status === 401) response.setHeader("Connection", "close");
      const message = (error as Error).message;
      if (refused?.jsonRpc === true) {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
      } else response.writeHead(status, refused?.headers ?? {}).end(message);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", () => resolve());
  });
  const address = http.address();
  const bound = typeof address === "object" && address !== null ? address.port : port;
  hosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  const close = async (): Promise<void> => {
    // Each session ends its open streams (a response already sent is flushed first), then the server
    // stops; a connection that lingers past a bound is cut.
    for (const transport of [...live]) await transport.close().catch(() => undefined);
    const ended = new Promise<void>((done) => http.close(() => done()));
    http.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((done) => (timer = setTimeout(done, CLOSE_BOUND_MS)));
    await Promise.race([ended, grace]);
    clearTimeout(timer);
    http.closeAllConnections();
  };
  return { http, port: bound, sessions: () => live.size, close };
}
