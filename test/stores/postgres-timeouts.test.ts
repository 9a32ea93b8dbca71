// A PostgreSQL store on a dead network must fail, not hang: a server that accepts the connection and
// never answers (a local TCP server that never writes) is a clear LeashError within the timeout.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import type { Server, Socket } from "node:net";
import { isLeashError } from "../../src/index.js";
import { DEFAULT_POSTGRES_TIMEOUTS, PostgresStore } from "../../src/stores/postgres/index.js";

/** A server that takes every connection and never says a word; counts and closes them on demand. */
async function silentServer(): Promise<{ port: number; sockets: Set<Socket>; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  return {
    port: address.port,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("PostgresStore timeouts", () => {
  test(
    "a server that accepts the connection and never answers is store_failed within the connect timeout, not a hang",
    { timeout: 60_000 },
    async () => {
      const server = await silentServer();
      const store = new PostgresStore(
        { connectionString: `postgres://leash@127.0.0.1:${server.port}/leash` },
        { timeouts: { connectMs: 200 } },
      );
      try {
        await assert.rejects(
          store.load("any"),
          (error: unknown) => isLeashError(error, "store_failed") && /timeout/i.test(error.message),
        );
        await assert.rejects(store.list(), (error: unknown) => isLeashError(error, "store_failed"));
      } finally {
        await store.close();
        await server.close();
      }
    },
  );

  test("the defaults bound every wait, and the options are checked when the store is built", () => {
    for (const value of Object.values(DEFAULT_POSTGRES_TIMEOUTS)) assert.ok(Number.isSafeInteger(value) && value > 0);
    const url = "postgres://leash@127.0.0.1:1/leash";
    for (const timeouts of [{ connectMs: 0 }, { statementMs: 1.5 }, { nap: 5 }, "fast"]) {
      assert.throws(
        () => new PostgresStore({ connectionString: url }, { timeouts: timeouts as never }),
        (error: unknown) => isLeashError(error, "invalid_option"),
        JSON.stringify(timeouts),
      );
    }
    assert.doesNotThrow(() => new PostgresStore({ connectionString: url, timeouts: { queryMs: 1000 } }));
  });
});
