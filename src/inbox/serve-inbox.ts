import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { StoreLocation } from "../operate/store-location.js";
import type { CliStore } from "../operate/open-store.js";
import type { ApproverCheck } from "./answer-from-inbox.js";
import type { ApproverRegistry } from "./approver-registry.js";
import { EventStreams } from "./event-streams.js";
import { inboxApp } from "./inbox-app.js";
import { KeyedQueue } from "./keyed-queue.js";
import { openLinkStore } from "./link-store.js";
import { allowedHosts, hostPart } from "./security-headers.js";
import { SessionStore } from "./session-store.js";
import { SignInThrottle } from "./sign-in-throttle.js";
import { StoreWatcher } from "./store-watcher.js";

/** Options of {@link startInbox}. */
interface InboxOptions {
  store: CliStore;
  location: StoreLocation;
  registry: ApproverRegistry;
  policy?: ApproverCheck;
  /** The address to listen on (loopback by default in `leash serve`). */
  host: string;
  /** The port; 0 picks a free one. */
  port: number;
  /** How often, at most, the store is looked at while an event stream is open (default 2000 ms, backing off to 8 s). */
  pollMs?: number;
  /**
   * The inbox's public address (`--base`), when people reach it through a proxy: its host is answered
   * beside the listening address, and its origin is one of the inbox's own for the checks of a POST.
   */
  base?: string;
}

/** A running inbox: where it listens, and how to stop it. */
interface RunningInbox {
  /** `http://HOST:PORT/`. */
  url: string;
  port: number;
  /** Ends the event streams, stops watching the store and closes the server (not the store). */
  close(): Promise<void>;
}

/**
 * Starts the web inbox on `host:port` over a store and its approver registry. Sessions live in this
 * process's memory; the store is watched only while a page listens for changes.
 */
export async function startInbox(options: InboxOptions): Promise<RunningInbox> {
  const watcher = new StoreWatcher(options.store, options.pollMs === undefined ? {} : { intervalMs: options.pollMs });
  const streams = new EventStreams(watcher);
  // The one-time links, on a connection of their own beside the registry's, closed with the inbox.
  const links = await openLinkStore(options.location);
  let hosts: ReadonlySet<string> | null = new Set();
  const publicUrl = options.base === undefined ? undefined : new URL(options.base);
  const publicOrigins: ReadonlySet<string> = new Set(publicUrl === undefined ? [] : [publicUrl.origin.toLowerCase()]);
  const app = inboxApp({
    store: options.store,
    location: options.location,
    registry: options.registry,
    links,
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    sessions: new SessionStore(),
    answerQueue: new KeyedQueue(),
    throttle: new SignInThrottle(),
    streams,
    get hosts() {
      return hosts;
    },
    origins: publicOrigins,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, port: options.port, hostname: options.host }) as Server;
    started.once("listening", () => resolve(started));
    started.once("error", reject);
  }).catch(async (error: unknown) => {
    await links.close().catch(() => undefined);
    throw error;
  });
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(options.host, port);
  if (hosts !== null && publicUrl !== undefined) hosts = new Set([...hosts, publicUrl.host.toLowerCase()]);
  return {
    url: `http://${hostPart(options.host)}:${port}/`,
    port,
    close: async () => {
      streams.closeAll();
      watcher.stop();
      // Idle keep-alive connections (an event stream just ended leaves one) would hold the close for
      // their timeout: they are closed as they become idle, and whatever is still open after a grace
      // period is cut.
      await new Promise<void>((resolve) => {
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const cut = setTimeout(() => server.closeAllConnections(), 3000);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      await links.close();
    },
  };
}
