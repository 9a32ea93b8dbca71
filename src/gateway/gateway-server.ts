import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitRequest, ElicitResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { Json } from "../index.js";
import type { Gateway } from "./gateway.js";

/**
 * The MCP server in front of a gateway: `tools/list` gives the upstream tools, `tools/call` a run, and
 * `notifications/tools/list_changed` goes to the client when an upstream changed its tools.
 */
export function gatewayServer(gateway: Gateway, listed: Map<string, Map<string, McpTool>>, version: string): Server {
  const server = new Server({ name: "leash-gateway", version }, { capabilities: { tools: { listChanged: true } } });
  // Every session hears that an upstream changed its tools, and lists them again.
  const unsubscribe = gateway.onToolsChanged(() => {
    void server.sendToolListChanged().catch(() => undefined);
  });
  server.onclose = unsubscribe;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: gateway.tools.map((item) => {
      const definition = (item.definition ?? {}) as Record<string, unknown>;
      const annotations = definition.annotations as Record<string, unknown> | undefined;
      const upstream = listed.get(String(definition.server))?.get(String(definition.name));
      return {
        name: item.name,
        description: item.description,
        inputSchema: (definition.inputSchema ?? { type: "object" }) as { type: "object" },
        ...(annotations !== undefined && Object.keys(annotations).length > 0 ? { annotations } : {}),
        ...(upstream?.title === undefined ? {} : { title: upstream.title }),
        ...(upstream?.outputSchema === undefined ? {} : { outputSchema: upstream.outputSchema }),
      };
    }),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    let sent = 0;
    const progress =
      token === undefined
        ? undefined
        : (message: string): void => {
            sent += 1;
            void extra
              .sendNotification({
                method: "notifications/progress",
                params: { progressToken: token, progress: sent, message },
              })
              .catch(() => undefined);
          };
    const args = (request.params.arguments ?? {}) as Record<string, Json>;
    const canAsk = server.getClientCapabilities()?.elicitation !== undefined;
    return gateway.call(request.params.name, args, {
      signal: extra.signal,
      ...(progress === undefined ? {} : { progress }),
      ...(canAsk
        ? { ask: (question: string, signal: AbortSignal) => askClient(extra.sendRequest, question, signal) }
        : {}),
    });
  });
  return server;
}

/** Asks the person at the client to approve or deny (MCP elicitation); declining is a denial. */
async function askClient(
  send: (
    request: ElicitRequest,
    schema: typeof ElicitResultSchema,
    options?: { signal?: AbortSignal; timeout?: number },
  ) => Promise<ElicitResult>,
  message: string,
  signal: AbortSignal,
): Promise<{ granted: boolean; note?: string } | undefined> {
  const result = await send(
    {
      method: "elicitation/create",
      params: {
        message,
        requestedSchema: {
          type: "object",
          properties: {
            approve: { type: "boolean", title: "Approve", description: "Let this call run once." },
            note: { type: "string", title: "Note", description: "Why (kept in the audit trail)." },
          },
          required: ["approve"],
        },
      },
    },
    ElicitResultSchema,
    { signal, timeout: 24 * 60 * 60 * 1000 },
  );
  const note = typeof result.content?.note === "string" && result.content.note !== "" ? result.content.note : undefined;
  const noted = note === undefined ? {} : { note };
  if (result.action === "accept") return { granted: result.content?.approve === true, ...noted };
  if (result.action === "decline") return { granted: false, note: note ?? "declined at the client" };
  return undefined;
}

/** How long a stopping `--http` gateway lets open connections end before it cuts them. */
const CLOSE_BOUND_MS = 2_000;

/** A request refused before it reaches the MCP transport: its HTTP status and why. */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
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

/**
 * Serves the gateway over Streamable HTTP on 127.0.0.1 only, one MCP session per client (each with
 * its own server on the one gateway). Resolves once listening, with the server and its port.
 */
export async function serveHttp(
  gateway: Gateway,
  listed: Map<string, Map<string, McpTool>>,
  version: string,
  port: number,
  limits: { allowedOrigins: readonly string[]; maxMessageBytes: number },
): Promise<{ http: HttpServer; port: number; close: () => Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let hosts: string[] = [];
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    checkCaller(request, hosts, limits.allowedOrigins);
    const parsed = request.method === "POST" ? await body(request, limits.maxMessageBytes) : undefined;
    const id = request.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (transport === undefined) {
      if (typeof id === "string") {
        response.writeHead(404).end("Unknown MCP session.");
        return;
      }
      const made = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableDnsRebindingProtection: true,
        allowedHosts: hosts,
        ...(limits.allowedOrigins.length === 0 ? {} : { allowedOrigins: [...limits.allowedOrigins] }),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, made),
      });
      made.onclose = () => {
        if (made.sessionId !== undefined) sessions.delete(made.sessionId);
      };
      await gatewayServer(gateway, listed, version).connect(made);
      transport = made;
    }
    await transport.handleRequest(request, response, parsed);
  };
  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) return;
      const status = error instanceof Refused ? error.status : 400;
      // A body too large is not read to its end: close the connection rather than drain it.
      if (status === 413) response.setHeader("Connection", "close");
      response.writeHead(status).end((error as Error).message);
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
    for (const transport of [...sessions.values()]) await transport.close().catch(() => undefined);
    const ended = new Promise<void>((done) => http.close(() => done()));
    http.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((done) => (timer = setTimeout(done, CLOSE_BOUND_MS)));
    await Promise.race([ended, grace]);
    clearTimeout(timer);
    http.closeAllConnections();
  };
  return { http, port: bound, close };
}
