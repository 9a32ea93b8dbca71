import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitRequest, ElicitResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { Json } from "../json/json-value.js";
import type { Gateway } from "./gateway.js";

/**
 * The MCP server in front of a gateway: `tools/list` gives the upstream tools, `tools/call` a run, and
 * `notifications/tools/list_changed` goes to the client when an upstream changed its tools. `client`
 * names who is at the other end (`--http`: the holder of the session's bearer token): its calls are
 * runs of its own.
 */
export function gatewayServer(
  gateway: Gateway,
  listed: Map<string, Map<string, McpTool>>,
  version: string,
  client?: string,
): Server {
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
    const deadline = clientDeadline(request.params._meta?.[WAIT_META], extra.signal);
    try {
      return await gateway.call(request.params.name, args, {
        signal: deadline.signal,
        ...(client === undefined ? {} : { client }),
        outputSchema: hasOutputSchema(gateway, listed, request.params.name),
        ...(progress === undefined ? {} : { progress }),
        ...(canAsk
          ? { ask: (question: string, signal: AbortSignal) => askClient(extra.sendRequest, question, signal) }
          : {}),
      });
    } finally {
      deadline.clear();
    }
  });
  return server;
}

/** Whether a gateway tool lists an `outputSchema` downstream (a client checks `structuredContent` against it). */
function hasOutputSchema(gateway: Gateway, listed: Map<string, Map<string, McpTool>>, name: string): boolean {
  const definition = (gateway.tools.find((item) => item.name === name)?.definition ?? {}) as Record<string, unknown>;
  return listed.get(String(definition.server))?.get(String(definition.name))?.outputSchema !== undefined;
}

/**
 * The `_meta` key with which a client says how long it waits for this call, in ms: a call that waits
 * for a person answers with the run to approve before then (when it is under `approval.waitMs`).
 */
const WAIT_META = "leash/waitMs";

/** The client's signal, also aborted after the wait the client gave in `_meta`, if it gave a usable one. */
function clientDeadline(given: unknown, signal: AbortSignal): { signal: AbortSignal; clear: () => void } {
  if (typeof given !== "number" || !Number.isInteger(given) || given <= 0 || given > 2 ** 31 - 1)
    return { signal, clear: () => undefined };
  const ended = new AbortController();
  const timer = setTimeout(() => ended.abort(), given);
  return { signal: AbortSignal.any([signal, ended.signal]), clear: () => clearTimeout(timer) };
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
