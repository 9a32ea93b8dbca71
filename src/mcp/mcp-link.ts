import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LeashError, messageOf } from "../errors/index.js";
import type { Connection } from "./mcp-connect.js";

/** The first wait before another attempt after a reconnect failed; it doubles up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;

/** What a {@link Link} needs: how to open a connection, and what to do on each new one. */
interface LinkSteps {
  server: string;
  /** Opens a new connection; `undefined` when leash did not open the first (a Client passed in). */
  open: (() => Promise<Connection>) | undefined;
  /** Made ready for calls (subscribed, listed again); a failure leaves the new connection closed. */
  connected(client: Client): Promise<void>;
}

/**
 * The connection of one tool set, opened again when it was lost: on the first call after the loss,
 * one attempt at a time (the calls meanwhile wait for it), with a backoff between failed attempts
 * during which calls fail at once with `mcp_unavailable`. A Client the app passed in is never
 * opened again (its connection is the app's).
 */
export class Link {
  #connection: Connection;
  readonly #steps: LinkSteps;
  #reconnecting: Promise<void> | undefined;
  #retryAt = 0;
  #backoff = FIRST_BACKOFF_MS;
  #lastError = "";
  #closed = false;

  constructor(first: Connection, steps: LinkSteps) {
    this.#connection = first;
    this.#steps = steps;
  }

  /** The client of the current connection. */
  get client(): Client {
    return this.#connection.client;
  }

  /** Aborted once the current connection is lost. */
  get lost(): AbortSignal {
    return this.#connection.lost;
  }

  /** Resolves once the connection is usable, reconnecting first if it was lost; else throws at once. */
  async ready(): Promise<void> {
    if (!this.#connection.lost.aborted) return;
    const { server, open } = this.#steps;
    if (open === undefined) {
      throw new LeashError(
        "mcp_failed",
        `The MCP server \`${server}\` lost its connection (${messageOf(this.#connection.lost.reason)}); leash does not reconnect a Client passed in.`,
      );
    }
    this.#reconnecting ??= this.#reconnect(open).finally(() => {
      this.#reconnecting = undefined;
    });
    await this.#reconnecting;
  }

  async #reconnect(open: () => Promise<Connection>): Promise<void> {
    const { server } = this.#steps;
    const wait = this.#retryAt - Date.now();
    if (wait > 0) {
      throw new LeashError(
        "mcp_unavailable",
        `The MCP server \`${server}\` lost its connection and could not be reached again (${this.#lastError}); leash tries again on a call in ${wait} ms.`,
      );
    }
    const old = this.#connection;
    // The old connection is let go in the background: a stdio server that does not exit is killed.
    void old.close().catch(() => undefined);
    let next: Connection | undefined;
    try {
      next = await open();
      if (this.#closed) throw new LeashError("mcp_failed", `The tools of the MCP server \`${server}\` were closed.`);
      await this.#steps.connected(next.client);
    } catch (error) {
      if (next !== undefined) await next.close().catch(() => undefined);
      this.#lastError = messageOf(error);
      this.#retryAt = Date.now() + this.#backoff;
      const waits = this.#backoff;
      this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_MS);
      throw new LeashError(
        "mcp_unavailable",
        `The MCP server \`${server}\` lost its connection and could not be reached again: ${this.#lastError}. leash tries again on a call after ${waits} ms.`,
        { cause: error },
      );
    }
    this.#connection = next;
    this.#backoff = FIRST_BACKOFF_MS;
    this.#retryAt = 0;
  }

  /** Closes the current connection. */
  close(): Promise<void> {
    this.#closed = true;
    return this.#connection.close();
  }
}
