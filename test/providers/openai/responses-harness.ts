// The loopback OpenAI Responses API: POST /v1/responses on 127.0.0.1, JSON and server-sent events,
// answering from a script and refusing with a 400 what the real API refuses (see responses-harness-check).
import OpenAI from "openai";
import type { Json, JsonObject } from "../../../src/json/index.js";
import { openaiResponses } from "../../../src/providers/openai/responses.js";
import type { LoopbackServer, ProviderHarness, ReadRequest } from "../support/harness.js";
import { startLoopbackServer } from "../support/loopback-server.js";
import { bodyObject, emptyReading, isJsonObject } from "../support/read-request.js";
import type { IssuedReasoning } from "./responses-harness-check.js";
import { checkResponsesRequest } from "./responses-harness-check.js";
import { answerEvents, buildAnswer, responsesEventStream, stallEvents } from "./responses-harness-reply.js";

const str = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  404: { type: "invalid_request_error", code: null },
  429: { type: "requests", code: "rate_limit_exceeded" },
  500: { type: "server_error", code: "server_error" },
};

function errorBody(status: number, message: string): JsonObject {
  const kind = ERROR_TYPES[status] ?? { type: "server_error", code: null };
  return { error: { message, type: kind.type, param: null, code: kind.code } };
}

/** Starts a loopback Responses API server. */
export function startResponsesServer(): Promise<LoopbackServer> {
  const issued = new Map<string, IssuedReasoning>();
  let ids = 0;
  const nextId = (prefix: string): string => `${prefix}_${String(++ids).padStart(4, "0")}`;
  return startLoopbackServer<never>({
    basePath: "/v1",
    route: "/v1/responses",
    errorBody,
    check: (body) => {
      const refusal = checkResponsesRequest(body, issued);
      if (refusal === undefined) return undefined;
      const error = {
        message: refusal.message,
        type: "invalid_request_error",
        param: refusal.param,
        code: refusal.code,
      };
      return { status: 400, message: refusal.message, body: { error } };
    },
    answer: (reply, body, respond) => {
      const fields = body as JsonObject;
      if (reply.type === "stall") {
        if (fields.stream !== true) return respond.refuse(500, "A stalled reply needs a streamed request.");
        respond.stall();
        return respond.write(responsesEventStream(stallEvents(nextId("resp"), nextId("msg"), fields, reply.text))); // held open
      }
      const built = buildAnswer(reply, fields, nextId);
      for (const given of built.issued) issued.set(given.encrypted, given.reasoning);
      if (fields.stream !== true) return respond.json(200, built.response);
      respond.end(responsesEventStream(answerEvents(built.response)));
    },
  });
}

function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (isJsonObject(part) && typeof part.text === "string" ? part.text : "")).join("");
}

/** A neutral reading of a Responses API request body. */
export function readResponsesRequest(request: Json): ReadRequest {
  const body = bodyObject(request);
  const input = Array.isArray(body.input) ? body.input.filter(isJsonObject) : [];
  const tools = Array.isArray(body.tools) ? body.tools.filter(isJsonObject) : [];
  const read = emptyReading({
    model: typeof body.model === "string" ? body.model : "",
    system: typeof body.instructions === "string" ? body.instructions : "",
    tools: tools.map((tool) => str(tool.name)),
    stream: body.stream === true,
    parallelToolCalls: typeof body.parallel_tool_calls === "boolean" ? body.parallel_tool_calls : undefined,
    maxOutputTokens: typeof body.max_output_tokens === "number" ? body.max_output_tokens : undefined,
  });
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
