// What every case of the shared adapter suite shares: a loopback server started and closed around
// the case, the harness's neutral reading of what it received, and the checks every case ends with.
import assert from "node:assert/strict";
import type { AuditRecord, Json } from "../../../src/index.js";
import type { ClientOptions, LoopbackServer, ProviderHarness, ReadRequest, ScriptedCall } from "./harness.js";
import { withLoopback } from "./loopback-test.js";

/** One case's world: the harness, the running server, and a client over it. */
export interface CaseContext {
  harness: ProviderHarness;
  server: LoopbackServer;
  stream: boolean;
  /** A new client over the server, streaming or not as the case runs. */
  client: (options?: Omit<ClientOptions, "stream">) => ReturnType<ProviderHarness["client"]>;
  /** The harness's reading of every request the server received, in order. */
  reads: () => ReadRequest[];
}

/**
 * Runs one case against a fresh server, and always closes it. After the case, the server must have
 * refused nothing: every request the adapter sent is one the real API would take.
 */
export async function withServer(
  harness: ProviderHarness,
  stream: boolean,
  run: (context: CaseContext) => Promise<void>,
): Promise<void> {
  await withLoopback(harness, async (server) => {
    await run({
      harness,
      server,
      stream,
      client: (options = {}) => harness.client(server.url, { ...options, stream }),
      reads: () => server.requests.map((request) => harness.read(request)),
    });
    assert.deepEqual(server.refusals, [], "the loopback server refused a request the real API would refuse");
  });
}

/** A scripted tool call with JSON arguments. */
export function call(id: string, tool: string, args: Json): ScriptedCall {
  return { id, tool, arguments: JSON.stringify(args) };
}

/** The arguments a replayed call carries, parsed (adapters may re-serialize valid JSON). */
export function parsedArguments(read: ReadRequest): { id: string; tool: string; args: unknown }[] {
  return read.calls.map((replayed) => ({ id: replayed.id, tool: replayed.tool, args: JSON.parse(replayed.arguments) }));
}

/** The outcome of every step of a run, in order (`null` for a step still waiting). */
export function outcomesOf<Outcome>(state: { steps: readonly { outcome: Outcome }[] }): Outcome[] {
  return state.steps.map((step) => step.outcome);
}

/** The audit records of one run, in order. */
export function recordsOf(records: readonly AuditRecord[] | undefined, runId: string): AuditRecord[] {
  return (records ?? []).filter((record) => record.run === runId).sort((a, b) => a.seq - b.seq);
}

/** The cost a `model_called` record charged: `data.usage.cost`, or `data.cost`. */
export function chargedCost(record: AuditRecord): number | undefined {
  const data = record.data as { cost?: unknown; usage?: { cost?: unknown } } | null;
  const cost = data?.usage?.cost ?? data?.cost;
  return typeof cost === "number" ? cost : undefined;
}

/** Waits for a promise, failing with a clear message past a generous deadline (never a fixed sleep). */
export async function within<T>(promise: Promise<T>, what: string, ms = 60_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}.`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
