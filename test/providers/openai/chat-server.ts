// A loopback Chat Completions server: POST /v1/chat/completions on 127.0.0.1, answering from a script
// in JSON or server-sent events, and refusing with a 400 what the real API refuses.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Json } from "../../../src/json/index.js";
import type { LoopbackServer, ScriptedReply } from "../support/harness.js";
import { chatRefusal } from "./chat-checks.js";
import { chatChunks, chatCompletion, chatError, chunkMaker, textChunks } from "./chat-replies.js";

const PATH = "/v1/chat/completions";

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

function startStream(response: ServerResponse): (chunk: unknown) => void {
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  return (chunk) => response.write(`data: ${JSON.stringify(chunk)}\n\n`);
}

/** Starts a loopback Chat Completions server on an ephemeral port. */
export async function startChatServer(): Promise<LoopbackServer> {
  const script: ScriptedReply[] = [];
  const requests: Json[] = [];
  const refusals: string[] = [];
  let closedEarly = 0;
  let served = 0;
  let markStallClosed!: () => void;
  const stallClosedPromise = new Promise<void>((resolve) => (markStallClosed = resolve));

  const answer = (body: Record<string, unknown>, response: ServerResponse): void => {
    const reply = script.shift();
    if (reply === undefined) {
      refusals.push("A request came past the end of the script.");
      sendJson(response, 500, chatError(500, "The loopback script has no reply left."));
      return;
    }
    const id = `chatcmpl-${++served}`;
    const model = body.model as string;
    const stream = body.stream === true;
    const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    switch (reply.type) {
      case "error":
        sendJson(response, reply.status, chatError(reply.status, reply.message));
        return;
      case "stall": {
        response.on("close", () => markStallClosed());
        if (!stream) return; // a completion that never comes
        const write = startStream(response);
        for (const chunk of textChunks(chunkMaker(id, model, includeUsage), reply.text)) write(chunk);
        return; // kept open until the client closes it
      }
      case "answer": {
        if (!stream) {
          sendJson(response, 200, chatCompletion(id, model, reply));
          return;
        }
        const write = startStream(response);
        for (const chunk of chatChunks(id, model, reply, includeUsage)) write(chunk);
        response.end("data: [DONE]\n\n");
        return;
      }
    }
  };

  const server = createServer((request, response) => {
    response.on("close", () => {
      if (!response.writableEnded) closedEarly++;
    });
    void (async () => {
      const text = await readBody(request);
      if (request.method !== "POST" || request.url !== PATH) {
        refusals.push(`${request.method ?? "?"} ${request.url ?? "?"} is not ${PATH}.`);
        sendJson(response, 404, chatError(404, `Invalid URL (${request.method} ${request.url})`));
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      requests.push(body as Json);
      const refusal = chatRefusal(body);
      if (refusal !== undefined) {
        refusals.push(refusal);
        sendJson(response, 400, chatError(400, refusal));
        return;
      }
      answer(body as Record<string, unknown>, response);
    })().catch((error: unknown) => {
      refusals.push(`The loopback server failed: ${String(error)}`);
      if (!response.headersSent) sendJson(response, 500, chatError(500, String(error)));
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
    stallClosed: () => stallClosedPromise,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
