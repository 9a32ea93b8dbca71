// What the provider tests repeat around a loopback server: starting it for one test and always closing
// it, the two modes every case runs in, and a signal for a call that is never cancelled.
import type { TestContext } from "node:test";
import type { LoopbackServer } from "./harness.js";

/** Every case runs once not streamed and once streamed. */
export const MODES = [false, true] as const;

/** How a test name says which mode it runs in. */
export const mode = (stream: boolean): string => (stream ? "streamed" : "not streamed");

/** A fresh signal for a model call that is not cancelled. */
export const signal = (): AbortSignal => new AbortController().signal;

/** Something that starts a loopback server: a provider harness, or a server's own start function. */
export interface LoopbackStarter<Server extends LoopbackServer> {
  start(): Promise<Server>;
}

/**
 * Runs `run` against a fresh loopback server and always closes the server after it.
 *
 * @example
 * await withLoopback(openaiChatHarness, async (server) => {
 *   server.reply({ type: "answer", text: "Done." });
 * });
 */
export async function withLoopback<Server extends LoopbackServer>(
  starter: LoopbackStarter<Server>,
  run: (server: Server) => Promise<void>,
): Promise<void> {
  const server = await starter.start();
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

/**
 * Starts a loopback server that is closed when the test ends.
 *
 * @example
 * const server = await loopbackFor(t, anthropicHarness);
 */
export async function loopbackFor<Server extends LoopbackServer>(
  context: TestContext,
  starter: LoopbackStarter<Server>,
): Promise<Server> {
  const server = await starter.start();
  context.after(() => server.close());
  return server;
}
