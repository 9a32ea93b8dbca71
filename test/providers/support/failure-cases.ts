// Cases 5 and 6 of the shared adapter suite: a model call that fails (an HTTP error) fails the run,
// audited and charging nothing; a cancel in the middle of a stream aborts the HTTP request.
import assert from "node:assert/strict";
import { verifyAudit } from "../../../src/index.js";
import type { CaseContext } from "./suite-context.js";
import { recordsOf, within } from "./suite-context.js";
import { suiteAgent } from "./suite-agent.js";

const PRICE = { input: 3, output: 15 };

export async function httpErrorCase(context: CaseContext, status: 429 | 500): Promise<void> {
  const { server, client, reads } = context;
  const ran: string[] = [];
  const agent = suiteAgent({ model: client({ price: PRICE }), calls: ran });
  const message = status === 429 ? "Rate limit reached for requests." : "The server had an error.";
  server.reply({ type: "error", status, message });

  const state = await agent.run("Why does the rear brake not bite?");

  assert.equal(state.status, "failed");
  assert.equal(state.failure?.code, "model_failed");
  assert.equal(state.usage.cost, 0, "a failed call charges nothing");
  assert.deepEqual(ran, []);
  assert.equal(reads().length, 1, "retries are the SDK client's setting, and the suite turns them off");
  const records = recordsOf(agent.audit.records, state.runId);
  const failed = records.filter((record) => record.event === "model_failed");
  assert.equal(failed.length, 1);
  assert.equal((failed[0]?.data as { code?: string }).code, "model_failed");
  assert.equal(records.filter((record) => record.event === "model_called").length, 0);
  assert.deepEqual(verifyAudit(records), []);
}

export async function abortMidStreamCase({ server, client }: CaseContext): Promise<void> {
  const agent = suiteAgent({ model: client({ price: PRICE }), calls: [] });
  server.reply({ type: "stall", text: "Let me think about the brake: the pads" });
  const deltas: string[] = [];
  let cancelled: Promise<unknown> | undefined;
  agent.on("text", ({ runId, delta }) => {
    deltas.push(delta);
    // Cancelled on the first delta: the stream has begun and will never finish on its own.
    cancelled ??= agent.cancel(runId);
  });

  const state = await within(agent.run("Why does the rear brake not bite?"), "the cancelled run to end");

  assert.ok(deltas.length > 0, "text arrived before the cancel");
  assert.ok(cancelled !== undefined);
  await within(cancelled, "the cancel to return");
  assert.equal(state.status, "stopped");
  assert.equal(state.stopReason, "cancelled");
  assert.equal(state.usage.cost, 0);
  await within(server.stallClosed(), "the stalled HTTP response to be closed by the client");
  const records = recordsOf(agent.audit.records, state.runId);
  assert.equal(records.filter((record) => record.event === "model_failed").length, 1);
  assert.deepEqual(verifyAudit(records), []);
}
