import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult, JSONRPCMessage, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** A connected SDK Client for a server in this process, over the SDK's in-memory transport. */
export async function clientOf(server: McpServer | Server): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  return client;
}

/**
 * A low-level server whose tools are given as plain definitions (any JSON Schema), listed `pageSize`
 * at a time, and whose calls are answered by `answer`.
 */
export function listingServer(
  tools: McpTool[],
  answer: (
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ) => Promise<CallToolResult> | CallToolResult,
  pageSize = 100,
): Server {
  const server = new Server({ name: "listing", version: "1" }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const page = tools.slice(start, start + pageSize);
    const next = start + pageSize < tools.length ? { nextCursor: String(start + pageSize) } : {};
    return { tools: page, ...next };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    answer(request.params.name, request.params.arguments ?? {}, extra.signal),
  );
  return server;
}

/** A plain tool definition with an object schema of the given properties. */
export function definition(
  name: string,
  properties: Record<string, object> = {},
  extra: Partial<McpTool> = {},
): McpTool {
  return { name, inputSchema: { type: "object", properties }, ...extra };
}

/**
 * A server spoken by hand over the in-memory transport: it answers `initialize` and `tools/list`
 * properly, and every `tools/call` with `callResult` as it is, garbage included.
 */
export async function garbledClient(tools: McpTool[], callResult: unknown): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.onmessage = (message) => {
    if (!("id" in message) || !("method" in message)) return;
    const reply = (result: unknown) => void serverSide.send({ jsonrpc: "2.0", id: message.id, result } as never);
    if (message.method === "initialize") {
      reply({
        protocolVersion: (message.params as { protocolVersion: string }).protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "garbled", version: "1" },
      });
    } else if (message.method === "tools/list") reply({ tools });
    else if (message.method === "tools/call") reply(callResult);
  };
  await serverSide.start();
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  return client;
}

/** A server spoken by hand: `answer(method, params)` gives each result (undefined: no reply at all). */
export async function rawClient(
  answer: (method: string, params: Record<string, unknown>) => unknown,
): Promise<{ client: Client; notify: () => Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const reply = async (message: JSONRPCMessage): Promise<void> => {
    if (!("id" in message) || !("method" in message)) return;
    const params = (message.params ?? {}) as Record<string, unknown>;
    const result =
      message.method === "initialize"
        ? {
            protocolVersion: params.protocolVersion,
            capabilities: { tools: { listChanged: true } },
            serverInfo: { name: "raw", version: "1" },
          }
        : await answer(message.method, params);
    // A reply after the client closed has no one to go to.
    if (result !== undefined)
      await serverSide.send({ jsonrpc: "2.0", id: message.id, result } as never).catch(() => {});
  };
  serverSide.onmessage = (message) => void reply(message);
  await serverSide.start();
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  const notify = () => serverSide.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  return { client, notify };
}
