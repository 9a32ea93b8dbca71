// A loopback Chat Completions server: POST /v1/chat/completions on 127.0.0.1, answering from a script
// in JSON or server-sent events, and refusing with a 400 what the real API refuses.
import type { LoopbackServer } from "../support/harness.js";
import { startLoopbackServer } from "../support/loopback-server.js";
import { chatRefusal } from "./chat-checks.js";
import { chatChunks, chatCompletion, chatError, chunkMaker, textChunks } from "./chat-replies.js";

const event = (chunk: unknown): string => `data: ${JSON.stringify(chunk)}\n\n`;

/** Starts a loopback Chat Completions server on an ephemeral port. */
export function startChatServer(): Promise<LoopbackServer> {
  let served = 0;
  return startLoopbackServer<never>({
    basePath: "/v1",
    route: "/v1/chat/completions",
    errorBody: chatError,
    check: (body) => {
      const message = chatRefusal(body);
      return message === undefined ? undefined : { status: 400, message };
    },
    answer: (reply, request, respond) => {
      const body = request as Record<string, unknown>;
      const id = `chatcmpl-${++served}`;
      const model = body.model as string;
      const stream = body.stream === true;
      const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      if (reply.type === "stall") {
        respond.stall();
        if (!stream) return; // a completion that never comes
        for (const chunk of textChunks(chunkMaker(id, model, includeUsage), reply.text)) respond.write(event(chunk));
        return; // kept open until the client closes it
      }
      if (!stream) return respond.json(200, chatCompletion(id, model, reply));
      for (const chunk of chatChunks(id, model, reply, includeUsage)) respond.write(event(chunk));
      respond.end("data: [DONE]\n\n");
    },
  });
}
