// The loopback OpenAI Responses API: POST /v1/responses on 127.0.0.1, JSON and server-sent events,
// answering from a script and refusing with a 400 what the real API refuses (see responses-harness-check).
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import type { Json, JsonObject } from "../../../src/json/index.js";
import { openaiResponses } from "../../../src/providers/openai/responses.js";
import type { LoopbackServer, ProviderHarness, ReadRequest, ScriptedReply } from "../support/harness.js";
import type { IssuedReasoning } from "./responses-harness-check.js";
import { checkResponsesRequest } from "./responses-harness-check.js";
import { answerEvents, buildAnswer, stallEvents } from "./responses-harness-reply.js";

const str = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: Json): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
): void {
  sendJson(response, status, { error: { message, type, param, code } });
}

function openStream(response: ServerResponse): (event: JsonObject) => void {
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  let sequence = 0;
  return (event) => {
    response.write(`event: ${str(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`);
  };
}

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  429: { type: "requests", code: "rate_limit_exceeded" },
  500: { type: "server_error", code: "server_error" },
};

/** Starts a loopback Responses API server. */
export async function startResponsesServer(): Promise<LoopbackServer> {
  const script: ScriptedReply[] = [];
  const requests: Json[] = [];
  const refusals: string[] = [];
  const issued = new Map<string, IssuedReasoning>();
  let closedEarly = 0;
  let ids = 0;
  const nextId = (prefix: string): string => `${prefix}_${String(++ids).padStart(4, "0")}`;
  let markStallClosed!: () => void;
  const stallClosed = new Promise<void>((resolve) => (markStallClosed = resolve));

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    response.on("close", () => {
      if (!response.writableFinished) closedEarly++;
    });
    if (request.method !== "POST" || request.url?.split("?")[0] !== "/v1/responses") {
      refusals.push(`${request.method ?? "?"} ${request.url ?? "?"}: no such route`);
      return sendError(
        response,
        404,
        `Invalid URL (${request.method ?? "?"} ${request.url ?? "?"})`,
        "invalid_request_error",
        null,
      );
    }
    let body: Json;
    try {
      body = JSON.parse(await readBody(request)) as Json;
    } catch {
      refusals.push("the body is not JSON");
      return sendError(
        response,
        400,
        "We could not parse the JSON body of your request.",
        "invalid_request_error",
        null,
      );
    }
    requests.push(body);
    const refusal = checkResponsesRequest(body, issued);
    if (refusal !== undefined) {
      refusals.push(refusal.message);
      return sendError(response, 400, refusal.message, "invalid_request_error", refusal.code, refusal.param);
    }
    const fields = body as JsonObject;
    const reply = script.shift();
    if (reply === undefined) {
      refusals.push(`request ${requests.length} is past the end of the script`);
      return sendError(response, 500, "The loopback script has no reply left.", "server_error", "server_error");
    }
    switch (reply.type) {
      case "error": {
        const kind = ERROR_TYPES[reply.status] ?? { type: "server_error", code: null };
        return sendError(response, reply.status, reply.message, kind.type, kind.code);
      }
      case "stall": {
        if (fields.stream !== true) throw new Error("A stalled reply needs a streamed request.");
        response.on("close", () => markStallClosed());
        const send = openStream(response);
        for (const event of stallEvents(nextId("resp"), nextId("msg"), fields, reply.text)) send(event);
        return; // Held open until the client goes away.
      }
      case "answer": {
        const built = buildAnswer(reply, fields, nextId);
        for (const given of built.issued) issued.set(given.encrypted, given.reasoning);
        if (fields.stream !== true) return sendJson(response, 200, built.response);
        const send = openStream(response);
        for (const event of answerEvents(built.response)) send(event);
        response.end();
        return;
      }
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      refusals.push(`the server failed: ${String(error)}`);
      if (!response.headersSent) sendError(response, 500, String(error), "server_error", "server_error");
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
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

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (isObject(part) && typeof part.text === "string" ? part.text : "")).join("");
}

/** A neutral reading of a Responses API request body. */
export function readResponsesRequest(request: Json): ReadRequest {
  const body = isObject(request) ? request : {};
  const input = Array.isArray(body.input) ? body.input.filter(isObject) : [];
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
  const read: ReadRequest = {
    model: typeof body.model === "string" ? body.model : "",
    system: typeof body.instructions === "string" ? body.instructions : "",
    tools: tools.map((tool) => str(tool.name)),
    calls: [],
    results: [],
    userTexts: [],
    providerState: [],
    stream: body.stream === true,
    parallelToolCalls: typeof body.parallel_tool_calls === "boolean" ? body.parallel_tool_calls : undefined,
    maxOutputTokens: typeof body.max_output_tokens === "number" ? body.max_output_tokens : undefined,
  };
  for (const item of input) {
    if (item.type === "function_call")
      read.calls.push({ id: str(item.call_id), tool: str(item.name), arguments: str(item.arguments) });
    else if (item.type === "function_call_output")
      read.results.push({
        callId: str(item.call_id),
        content: typeof item.output === "string" ? item.output : JSON.stringify(item.output),
      });
    else if (item.type === "reasoning") read.providerState.push(item);
    else if ((item.type === undefined || item.type === "message") && item.role === "user")
      read.userTexts.push(messageText(item.content));
  }
  return read;
}

/** The harness of `openaiResponses`, for the shared adapter suite. */
export const openaiResponsesHarness: ProviderHarness = {
  name: "openaiResponses",
  start: startResponsesServer,
  client: (url, options) =>
    openaiResponses(new OpenAI({ apiKey: "sk-loopback", baseURL: url, maxRetries: 0 }), {
      model: "gpt-loopback",
      stream: options.stream,
      ...(options.price === undefined ? {} : { price: options.price }),
      ...(options.parallelToolCalls === undefined ? {} : { parallelToolCalls: options.parallelToolCalls }),
    }),
  read: readResponsesRequest,
  providerState: true,
  malformedArguments: () => true,
};
