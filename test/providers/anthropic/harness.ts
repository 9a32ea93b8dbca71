// The loopback Anthropic Messages API: node:http on 127.0.0.1, POST /v1/messages, JSON and server-sent
// events, answering from a script and refusing (400, Anthropic's error body) what the real API refuses.
import Anthropic from "@anthropic-ai/sdk";
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Json } from "../../../src/json/index.js";
import { anthropicMessages } from "../../../src/providers/anthropic/index.js";
import type { LoopbackServer, ProviderHarness, ScriptedReply } from "../support/harness.js";
import { readAnthropicRequest } from "./read-request.js";
import { refusalOf } from "./wire-checks.js";
import { answerEvents, errorBody, messageJson, sse, stallEvents, thinkingBlock } from "./wire-replies.js";

/** The model name the harness's clients ask for. */
export const HARNESS_MODEL = "claude-loopback-1";

function sendJson(response: ServerResponse, status: number, body: Json): void {
  response.writeHead(status, { "content-type": "application/json", "request-id": "req_loopback" });
  response.end(JSON.stringify(body));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

/** A reply only this harness scripts: a stream that starts, then sends an `error` event and ends. */
export interface StreamErrorReply {
  type: "stream_error";
  text: string;
  /** Anthropic's error type, e.g. "overloaded_error". */
  error: string;
}

/** The loopback server, which also takes replies of its own. */
export interface AnthropicLoopbackServer extends LoopbackServer {
  reply(...replies: (ScriptedReply | StreamErrorReply)[]): void;
}

/** Starts a loopback Messages API server. */
export async function startAnthropicServer(): Promise<AnthropicLoopbackServer> {
  const script: (ScriptedReply | StreamErrorReply)[] = [];
  const requests: Json[] = [];
  const refusals: string[] = [];
  // Every thinking block given out, by its signature: one sent back must be exactly this.
  const issued = new Map<string, Json>();
  let closedEarly = 0;
  let answered = 0;
  let onStallClosed: () => void = () => undefined;
  const stallClosed = new Promise<void>((resolve) => (onStallClosed = resolve));

  const refuse = (response: ServerResponse, status: number, reason: string): void => {
    refusals.push(reason);
    sendJson(response, status, errorBody(status, reason));
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    response.on("close", () => {
      if (!response.writableEnded) closedEarly += 1;
    });
    const text = await readBody(request);
    if (request.method !== "POST" || request.url?.split("?")[0] !== "/v1/messages")
      return refuse(response, 404, `no route ${request.method} ${request.url}`);
    if (request.headers["x-api-key"] === undefined && request.headers.authorization === undefined)
      return refuse(response, 401, "an x-api-key or authorization header is required");
    if (request.headers["anthropic-version"] === undefined)
      return refuse(response, 400, "anthropic-version: header is required");
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      return refuse(response, 400, "the request body is not valid JSON");
    }
    requests.push(body);
    const reason = refusalOf(body, issued);
    if (reason !== undefined) return refuse(response, 400, reason);
    const reply = script.shift();
    if (reply === undefined) return refuse(response, 500, "a request past the end of the script");
    const stream = (body as { stream?: unknown }).stream === true;
    const id = `msg_loopback_${++answered}`;
    const model = (body as { model: string }).model;
    if (reply.type === "error") return sendJson(response, reply.status, errorBody(reply.status, reply.message));
    if ((reply.type === "stall" || reply.type === "stream_error") && !stream)
      return refuse(response, 500, `a ${reply.type} reply needs a streamed request`);
    if (reply.type === "answer" && reply.reasoning !== undefined)
      issued.set(reply.reasoning.signature, thinkingBlock(reply.reasoning));
    if (!stream && reply.type === "answer") {
      let message: Json;
      try {
        message = messageJson(reply, id, model);
      } catch (error) {
        return refuse(response, 500, `the script cannot be sent as JSON: ${(error as Error).message}`);
      }
      return sendJson(response, 200, message);
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (reply.type === "answer") {
      response.end(sse(answerEvents(reply, id, model)));
      return;
    }
    if (reply.type === "stream_error") {
      const error = {
        event: "error",
        data: { type: "error", error: { type: reply.error, message: "loopback error event" } },
      };
      response.end(sse([...stallEvents(reply.text, id, model), error]));
      return;
    }
    response.on("close", onStallClosed);
    response.write(sse(stallEvents(reply.text, id, model)));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) refuse(response, 500, `the loopback server failed: ${String(error)}`);
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
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

/** The Anthropic Messages harness of the shared adapter suite. */
export const anthropicHarness: ProviderHarness = {
  name: "anthropicMessages",
  start: startAnthropicServer,
  client(url, options) {
    const client = new Anthropic({ baseURL: url, apiKey: "loopback-key", maxRetries: 0 });
    return anthropicMessages(client, {
      model: HARNESS_MODEL,
      maxTokens: 1024,
      stream: options.stream,
      price: options.price,
      parallelToolCalls: options.parallelToolCalls,
    });
  },
  read: readAnthropicRequest,
  providerState: true,
  malformedArguments: (stream) => stream,
  cacheWrites: true,
  issuedState: (reasoning) => [thinkingBlock(reasoning)],
};
