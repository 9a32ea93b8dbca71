import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LeashError, messageOf } from "../errors/index.js";
import type { McpClient, McpSource } from "./mcp-options.js";

/** A connected client and how to let it go. */
export interface Connection {
  client: Client;
  /**
   * Aborted, with the reason, once the connection is lost for good: the stdio server exited or sent a
   * message over the SDK's size cap, or the HTTP server no longer knows the session. Never for a
   * Client the app passed in (its connection is the app's).
   */
  lost: AbortSignal;
  /** Closes what was started here; a Client the app passed in stays open. */
  close(): Promise<void>;
}

/** Whether an error the transport reports means the connection cannot be used again. */
function losesConnection(error: unknown): boolean {
  const { message, code } = error as { message?: unknown; code?: unknown };
  if (typeof message === "string" && message.includes("ReadBuffer exceeded maximum size")) return true;
  // A Streamable HTTP server that restarted answers 404 to the session it no longer knows.
  if (code === 404 && typeof message === "string" && message.startsWith("Streamable HTTP error")) return true;
  return false;
}

const STDERR_KEPT = 4096;
const CLOSE_WAIT_MS = 5_000;

/** Waits for a promise at most `ms`, ignoring how it ends. */
async function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([work.catch(() => undefined), waited]);
  clearTimeout(timer);
}

/** Whether a source is a connected SDK Client (of any copy of the SDK). */
export function isClient(source: McpSource): source is McpClient {
  if (typeof source !== "object" || source === null) return false;
  const client = source as Partial<McpClient>;
  return typeof client.callTool === "function" && typeof client.listTools === "function";
}

/**
 * Connects to an MCP server: starts a command over stdio, or opens a Streamable HTTP session, or uses
 * a connected SDK `Client`. A server that cannot be reached throws `LeashError` `mcp_unavailable`.
 */
export async function connect(source: McpSource, server: string, timeoutMs: number): Promise<Connection> {
  if (typeof source !== "object" || source === null) {
    throw new LeashError("invalid_option", "mcpTools: Expected a source: { command }, { url } or an SDK Client.");
  }
  // An SDK Client, whatever the copy of the SDK that made it: only the methods above are used.
  if (isClient(source))
    return { client: source as unknown as Client, lost: new AbortController().signal, close: async () => {} };
  let stderr = "";
  let transport: StdioClientTransport | StreamableHTTPClientTransport;
  if ("command" in source && typeof source.command === "string") {
    const stdio = new StdioClientTransport({
      command: source.command,
      ...(source.args === undefined ? {} : { args: source.args }),
      ...(source.env === undefined ? {} : { env: source.env }),
      ...(source.cwd === undefined ? {} : { cwd: source.cwd }),
      stderr: "pipe",
    });
    // Read all the time, so a talkative server never blocks on a full pipe; the tail names a failure.
    stdio.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_KEPT);
    });
    transport = stdio;
  } else if ("url" in source && (typeof source.url === "string" || source.url instanceof URL)) {
    const headers = source.headers;
    transport = new StreamableHTTPClientTransport(new URL(source.url), {
      ...(headers === undefined ? {} : { requestInit: { headers } }),
    });
  } else {
    throw new LeashError("invalid_option", "mcpTools: Expected a source: { command }, { url } or an SDK Client.");
  }
  const client = new Client({ name: "leash", version: "1" }, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    const tail = stderr.trim() === "" ? "" : ` Its stderr ended with: ${stderr.trim().slice(-500)}`;
    throw new LeashError(
      "mcp_unavailable",
      `The MCP server \`${server}\` could not be reached: ${messageOf(error)}.${tail}`,
      {
        cause: error,
      },
    );
  }
  const lost = new AbortController();
  client.onclose = () => lost.abort(new Error("the connection closed"));
  client.onerror = (error) => {
    if (losesConnection(error)) lost.abort(error);
  };
  const close = async (): Promise<void> => {
    // A Streamable HTTP session is ended on the server too; a stdio server is stopped by closing.
    // Bounded: a server that never answers the DELETE does not keep close() waiting.
    if (transport instanceof StreamableHTTPClientTransport) await bounded(transport.terminateSession(), CLOSE_WAIT_MS);
    await client.close();
  };
  return { client, lost: lost.signal, close };
}
