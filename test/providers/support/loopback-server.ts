// The node:http plumbing every provider's loopback server shares: one POST route on 127.0.0.1 at an
// ephemeral port, the request bodies recorded, refusals recorded with the provider's error body, a script
// of replies answered in order, responses the client closed early counted, and a stalled stream's close
// awaited. What is the provider's own (what it refuses, how it answers a reply as JSON or server-sent
// events, its error body) comes in a `LoopbackWire`.
import { createServer } from "node:http";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Json } from "../../../src/json/index.js";
import type { LoopbackServer, ScriptedReply } from "./harness.js";

/** What the real API answers a request it refuses with. */
export interface WireRefusal {
  status: number;
  /** Why, as recorded in `refusals`. */
  message: string;
  /** The error body, when it is not `errorBody(status, message)` (e.g. one naming the faulty field). */
  body?: unknown;
}

/** How a provider answers one scripted reply: the response, already checked and not yet written to. */
export interface WireResponder {
  /** Answers with a JSON body. */
  json(status: number, body: unknown): void;
  /** Refuses: records `message` in `refusals` and answers the provider's error body. */
  refuse(status: number, message: string): void;
  /** Writes server-sent event text, opening the stream (200, text/event-stream) on the first write. */
  write(text: string): void;
  /** Ends the response, after writing `text` when given. */
  end(text?: string): void;
  /** Marks this response as a stall: `stallClosed()` resolves when the client closes it. */
  stall(): void;
}

/** The provider's own part of a loopback server. */
export interface LoopbackWire<Extra extends { type: string } = never> {
  /** The path the SDK's base URL carries after the origin: "/v1" for OpenAI, "" for Anthropic. */
  basePath: string;
  /** The one route served, e.g. "/v1/chat/completions". */
  route: string;
  /** The provider's error body for a status. */
  errorBody(status: number, message: string): unknown;
  /** Headers every JSON answer carries beside its content type. */
  headers?: Record<string, string>;
  /** What the real API would refuse in a request (its headers and parsed body), or `undefined`. */
  check(body: Json, headers: IncomingHttpHeaders): WireRefusal | undefined;
  /** Answers the next scripted reply; `error` replies never come here (the base answers them with `errorBody`). */
  answer(reply: WireReply | Extra, body: Json, respond: WireResponder): void;
}

/** A scripted reply the provider answers itself (the base answers `error` replies with `errorBody`). */
export type WireReply = Exclude<ScriptedReply, { type: "error" }>;

/** A loopback server whose script also takes the provider's own kinds of reply. */
export interface WireLoopbackServer<Extra> extends LoopbackServer {
  reply(...replies: (ScriptedReply | Extra)[]): void;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function parse(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/**
 * Starts a loopback server for one provider's wire on 127.0.0.1 at an ephemeral port. Give `Extra`
 * explicitly (`never` when the provider scripts no replies of its own): a caller's return type would
 * otherwise be taken for it.
 *
 * @example
 * const server = await startLoopbackServer({ basePath: "/v1", route: "/v1/chat/completions", ... });
 * server.reply({ type: "answer", text: "Done." });
 */
export async function startLoopbackServer<Extra extends { type: string } = never>(
  wire: LoopbackWire<Extra>,
): Promise<WireLoopbackServer<Extra>> {
  const script: (ScriptedReply | Extra)[] = [];
  const requests: Json[] = [];
  const refusals: string[] = [];
  let closedEarly = 0;
  let markStallClosed!: () => void;
  const stallClosed = new Promise<void>((resolve) => (markStallClosed = resolve));

  function sendJson(response: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    response.writeHead(status, {
      ...wire.headers,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
    });
    response.end(text);
  }

  function refuse(response: ServerResponse, refusal: WireRefusal): void {
    refusals.push(refusal.message);
    sendJson(response, refusal.status, refusal.body ?? wire.errorBody(refusal.status, refusal.message));
  }

  function responder(response: ServerResponse): WireResponder {
    const open = (): void => {
      if (response.headersSent) return;
      response.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
    };
    return {
      json: (status, body) => sendJson(response, status, body),
      refuse: (status, message) => refuse(response, { status, message }),
      write: (text) => {
        open();
        response.write(text);
      },
      end: (text) => {
        open();
        response.end(text);
      },
      stall: () => void response.on("close", () => markStallClosed()),
    };
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    const where = `${request.method ?? "?"} ${request.url ?? "?"}`;
    if (request.method !== "POST" || request.url?.split("?")[0] !== wire.route)
      return refuse(response, { status: 404, message: `Invalid URL (${where}): the route is ${wire.route}.` });
    const body = parse(text);
    if (body === undefined) return refuse(response, { status: 400, message: "The request body is not JSON." });
    requests.push(body);
    const refusal = wire.check(body, request.headers);
    if (refusal !== undefined) return refuse(response, refusal);
    const reply = script.shift();
    if (reply === undefined)
      return refuse(response, { status: 500, message: "A request came past the end of the script." });
    // The provider's own replies are never of type "error", so this narrows to ScriptedReply's.
    if (reply.type === "error") {
      const { status, message } = reply as Extract<ScriptedReply, { type: "error" }>;
      return sendJson(response, status, wire.errorBody(status, message));
    }
    wire.answer(reply as WireReply | Extra, body, responder(response));
  }

  const server = createServer((request, response) => {
    response.on("close", () => {
      if (!response.writableEnded) closedEarly += 1;
    });
    handle(request, response).catch((error: unknown) => {
      const message = `The loopback server failed: ${String(error)}`;
      if (!response.headersSent) refuse(response, { status: 500, message });
      else {
        refusals.push(message);
        response.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${wire.basePath}`,
    reply: (...replies) => void script.push(...replies),
    requests,
    refusals,
    get closedEarly() {
      return closedEarly;
    },
    stallClosed: () => stallClosed,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
