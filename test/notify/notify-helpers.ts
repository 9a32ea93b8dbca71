// What the webhook tests share: a loopback receiver that verifies every delivery with the
// `standardwebhooks` package, secrets, a clock the test moves, and an agent whose write waits for a person.
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { Agent, Decision, Policy, tool } from "../../src/index.js";
import type { Planner, RunStore } from "../../src/index.js";

/** A fresh `whsec_` secret of 32 random bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** One request the receiver got. */
export interface Delivery {
  path: string;
  id: string;
  timestamp: number;
  signatures: string[];
  body: string;
  /** Whether `new Webhook(secret).verify` accepted it, for each secret the receiver knows (same order). */
  verified: boolean[];
  /** Whether each secret's signature of this id, timestamp and body (the library's `sign`) is among the signatures. */
  signedBy: boolean[];
}

/** How the receiver answers the n-th request (0-based) to the webhook path. */
export type Answer = number | "hang" | { redirect: string };

/** A loopback webhook receiver. */
export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Requests to any path other than the webhook's (a followed redirect would land here). */
  strays: string[];
  /** Requests left hanging, not answered yet. */
  hanging(): number;
  /** The ids seen, once each: what a receiver that dedupes on `webhook-id` keeps. */
  seen: Set<string>;
  close(): Promise<void>;
}

function headerOf(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return typeof value === "string" ? value : "";
}

/** Starts a receiver on 127.0.0.1 that answers by `answer(n)`. */
export async function startReceiver(secrets: string[], answer: (n: number) => Answer): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const strays: string[] = [];
  const seen = new Set<string>();
  const open = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.url !== "/hook") {
        strays.push(request.url ?? "");
        response.writeHead(200).end();
        return;
      }
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = {
        "webhook-id": headerOf(request, "webhook-id"),
        "webhook-timestamp": headerOf(request, "webhook-timestamp"),
        "webhook-signature": headerOf(request, "webhook-signature"),
      };
      const timestamp = Number(headers["webhook-timestamp"]);
      const signatures = headers["webhook-signature"].split(" ");
      const delivery: Delivery = {
        path: request.url,
        id: headers["webhook-id"],
        timestamp,
        signatures,
        body,
        verified: secrets.map((secret) => {
          try {
            new Webhook(secret).verify(body, headers);
            return true;
          } catch {
            return false;
          }
        }),
        signedBy: secrets.map((secret) =>
          signatures.includes(new Webhook(secret).sign(headers["webhook-id"], new Date(timestamp * 1000), body)),
        ),
      };
      const n = deliveries.length;
      deliveries.push(delivery);
      const reply = answer(n);
      if (reply === "hang") {
        open.add(response);
        response.on("close", () => open.delete(response));
        return;
      }
      if (typeof reply === "object") {
        response.writeHead(302, { location: reply.redirect }).end();
        return;
      }
      if (reply >= 200 && reply < 300) seen.add(delivery.id);
      response.writeHead(reply).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    strays,
    seen,
    hanging: () => open.size,
    close: async () => {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A clock a test sets and moves: no sleeps where time matters. */
export function testClock(start = new Date()): { now: () => Date; advance: (ms: number) => void } {
  let at = start.getTime();
  return { now: () => new Date(at), advance: (ms) => (at += ms) };
}

/** An agent whose one write waits for a person's approval, then finishes. */
export function writeAgent(store: RunStore): Agent {
  const save = tool({
    name: "save",
    description: "Save a note.",
    parameters: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    effect: "write",
    execute: () => "saved",
  });
  const planner: Planner = (state) =>
    state.steps.length === 0 ? Decision.act("save", { text: "a note" }) : Decision.finish("done");
  return new Agent({
    tools: [save],
    planner,
    policy: new Policy({ allowEffects: ["read", "write"], approvalFor: ["write"] }),
    store,
  });
}

/** Waits until `condition` holds, polling; fails after a generous deadline. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting until ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
