// The loopback Anthropic Messages API: node:http on 127.0.0.1, POST /v1/messages, JSON and server-sent
// events, answering from a script and refusing (400, Anthropic's error body) what the real API refuses.
import Anthropic from "@anthropic-ai/sdk";
import type { IncomingHttpHeaders } from "node:http";
import type { Json } from "../../../src/json/index.js";
import { anthropicMessages } from "../../../src/providers/anthropic/index.js";
import type { ProviderHarness } from "../support/harness.js";
import { startLoopbackServer } from "../support/loopback-server.js";
import type { WireLoopbackServer, WireRefusal } from "../support/loopback-server.js";
import { readAnthropicRequest } from "./read-request.js";
import { refusalOf } from "./wire-checks.js";
import { answerEvents, errorBody, messageJson, sse, stallEvents, thinkingBlock } from "./wire-replies.js";

/** The model name the harness's clients ask for. */
export const HARNESS_MODEL = "claude-loopback-1";

/** A reply only this harness scripts: a stream that starts, then sends an `error` event and ends. */
export interface StreamErrorReply {
  type: "stream_error";
  text: string;
  /** Anthropic's error type, e.g. "overloaded_error". */
  error: string;
}

/** The loopback server, which also takes replies of its own. */
export type AnthropicLoopbackServer = WireLoopbackServer<StreamErrorReply>;

function headerRefusal(headers: IncomingHttpHeaders): WireRefusal | undefined {
  if (headers["x-api-key"] === undefined && headers.authorization === undefined)
    return { status: 401, message: "an x-api-key or authorization header is required" };
  if (headers["anthropic-version"] === undefined)
    return { status: 400, message: "anthropic-version: header is required" };
  return undefined;
}

/** Starts a loopback Messages API server. */
export function startAnthropicServer(): Promise<AnthropicLoopbackServer> {
  // Every thinking block given out, by its signature: one sent back must be exactly this.
  const issued = new Map<string, Json>();
  let answered = 0;
  return startLoopbackServer<StreamErrorReply>({
    basePath: "",
    route: "/v1/messages",
    errorBody,
    headers: { "request-id": "req_loopback" },
    check: (body, headers) => {
      const refusal = headerRefusal(headers);
      if (refusal !== undefined) return refusal;
      const message = refusalOf(body, issued);
      return message === undefined ? undefined : { status: 400, message };
    },
    answer: (reply, body, respond) => {
      const stream = (body as { stream?: unknown }).stream === true;
      const id = `msg_loopback_${++answered}`;
      const model = (body as { model: string }).model;
      if (reply.type !== "answer") {
        if (!stream) return respond.refuse(500, `a ${reply.type} reply needs a streamed request`);
        if (reply.type === "stall") {
          respond.stall();
          return respond.write(sse(stallEvents(reply.text, id, model)));
        }
        const error = {
          event: "error",
          data: { type: "error", error: { type: reply.error, message: "loopback error event" } },
        };
        return respond.end(sse([...stallEvents(reply.text, id, model), error]));
      }
      if (reply.reasoning !== undefined) issued.set(reply.reasoning.signature, thinkingBlock(reply.reasoning));
      if (stream) return respond.end(sse(answerEvents(reply, id, model)));
      let message: Json;
      try {
        message = messageJson(reply, id, model);
      } catch (error) {
        return respond.refuse(500, `the script cannot be sent as JSON: ${(error as Error).message}`);
      }
      respond.json(200, message);
    },
  });
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
