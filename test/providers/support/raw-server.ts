// A bare loopback server for what a provider's script cannot produce (a stream cut short, an error
// event mid-stream, a response the API marks incomplete): every request is answered 200 with the text
// the test writes for its body, as server-sent events when the request asks to stream.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A running bare server. */
export interface RawServer {
  /** `http://127.0.0.1:PORT`, without the provider's base path. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Starts a bare loopback server that answers each request's parsed body with `answer(body)`.
 *
 * @example
 * const server = await startRawServer(() => `data: ${JSON.stringify(chunk)}\n\n`);
 * const client = openaiChatHarness.client(`${server.origin}/v1`, { stream: true });
 */
export async function startRawServer(answer: (body: Record<string, unknown>) => string): Promise<RawServer> {
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
      response.writeHead(200, { "content-type": body.stream === true ? "text/event-stream" : "application/json" });
      response.end(answer(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
