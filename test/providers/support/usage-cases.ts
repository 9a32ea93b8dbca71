// Cases 7, 8 and 9 of the shared adapter suite: the exact cost of a usage with cache and reasoning
// tokens; a provider's opaque reasoning state sent back verbatim; streamed text as `text` events.
import assert from "node:assert/strict";
import { verifyAudit } from "../../../src/index.js";
import type { Json } from "../../../src/index.js";
import type { CaseContext } from "./suite-context.js";
import { call, chargedCost, recordsOf } from "./suite-context.js";
import { suiteAgent } from "./suite-agent.js";

// Prices and counts whose products are exact in binary, so the formula has one exact answer.
const PRICE = { input: 3, output: 15, cacheRead: 0.25, cacheWrite: 3.75 };
const USAGE = { input: 10_000, output: 700, cacheRead: 6_000, cacheWrite: 1_000, reasoning: 300 };

export async function usageCostCase({ harness, server, client }: CaseContext): Promise<void> {
  const agent = suiteAgent({ model: client({ price: PRICE }), calls: [] });
  server.reply({ type: "answer", text: "New pads.", usage: USAGE });

  const state = await agent.run("Why does the rear brake not bite?");

  assert.equal(state.status, "completed", JSON.stringify(state.failure));
  // API section 8: cache writes count where the wire reports them; elsewhere those tokens are plain
  // input. Reasoning tokens are part of the output and are charged as output.
  const cacheWrite = harness.cacheWrites === true ? USAGE.cacheWrite : 0;
  const expected =
    ((USAGE.input - USAGE.cacheRead - cacheWrite) * PRICE.input +
      USAGE.cacheRead * PRICE.cacheRead +
      cacheWrite * PRICE.cacheWrite +
      USAGE.output * PRICE.output) /
    1e6;
  assert.equal(state.usage.cost, expected);
  const called = recordsOf(agent.audit.records, state.runId).filter((record) => record.event === "model_called");
  assert.equal(called.length, 1);
  assert.equal(chargedCost(called[0]!), expected);
  assert.equal(state.usage.tokens, USAGE.input + USAGE.output);
}

const REASONING = { text: "Brakes that do not bite: pads first.", signature: "c2lnbmF0dXJlLW9mLXRoZS1ibG9jaw==" };

export async function providerStateCase({ harness, server, client, reads }: CaseContext): Promise<void> {
  const agent = suiteAgent({ model: client(), calls: [] });
  server.reply(
    { type: "answer", reasoning: REASONING, calls: [call("call_look", "lookup", { topic: "brakes" })] },
    { type: "answer", calls: [call("call_count", "tally", {})] },
    { type: "answer", text: "New pads." },
  );

  const state = await agent.run("Why does the rear brake not bite?");

  assert.equal(state.status, "completed", JSON.stringify(state.failure));
  const read = reads();
  assert.equal(read.length, 3);
  assert.deepEqual(read[0]!.providerState, [], "nothing to send back before the first answer");
  const sentBack = read[1]!.providerState;
  assert.ok(sentBack.length > 0, "the reasoning state went back on the next request");
  const issued: Json[] | undefined = harness.issuedState?.(REASONING);
  if (issued !== undefined) assert.deepEqual(sentBack, issued, "verbatim, as the server issued it");
  assert.ok(JSON.stringify(sentBack).includes(REASONING.signature), "the signature went back unchanged");
  // The prefix of a conversation never changes: a turn later it is still there, the same.
  assert.deepEqual(read[2]!.providerState.slice(0, sentBack.length), sentBack);
  assert.deepEqual(verifyAudit(agent.audit.records ?? []), []);
}

const FIRST = "Let me look the brakes up first.";
const STREAMED = "Rear brakes that do not bite usually need new pads, and sometimes a new cable.";

export async function streamedTextCase({ server, client }: CaseContext): Promise<void> {
  const agent = suiteAgent({ model: client(), calls: [] });
  const events: { runId: string; step: number; delta: string }[] = [];
  agent.on("text", (event) => events.push(event));
  server.reply(
    { type: "answer", text: FIRST, calls: [call("call_look", "lookup", { topic: "brakes" })] },
    { type: "answer", text: STREAMED },
  );

  const state = await agent.run("Why does the rear brake not bite?");

  assert.equal(state.status, "completed", JSON.stringify(state.failure));
  assert.equal(state.answer, STREAMED);
  for (const event of events) assert.equal(event.runId, state.runId);
  // Each event names the step the model is deciding: the lookup (0), then the answer (1).
  const textOf = (step: number): string =>
    events
      .filter((event) => event.step === step)
      .map((event) => event.delta)
      .join("");
  assert.deepEqual([...new Set(events.map((event) => event.step))], [0, 1]);
  assert.equal(textOf(0), FIRST);
  assert.equal(textOf(1), STREAMED);
  assert.ok(events.filter((event) => event.step === 1).length > 1, "the answer came in several deltas, not one");
}

// Counts a provider may report that leash cannot charge exactly: too large to be exact, a fraction,
// a string of digits, a negative number. Each one must fail the call, never count as 0 tokens.
const UNREADABLE_COUNTS: unknown[] = [2 ** 60, 1_500_000.5, "2000000", -1, Number.MAX_SAFE_INTEGER + 2, true];

export async function unreadableUsageCase({ server, client }: CaseContext): Promise<void> {
  for (const count of UNREADABLE_COUNTS) {
    const agent = suiteAgent({ model: client({ price: PRICE }), calls: [] });
    // The scripted usage is encoded by each harness in its provider's field for output tokens.
    server.reply({ type: "answer", text: "New pads.", usage: { input: 10, output: count as number } });

    const state = await agent.run("Why does the rear brake not bite?", { limits: { maxTokens: 1_000 } });

    const shown = JSON.stringify(count);
    assert.equal(state.status, "failed", `a usage of ${shown} fails the call`);
    assert.equal(state.failure?.code, "model_failed", shown);
    assert.equal(state.answer, undefined, shown);
    const records = recordsOf(agent.audit.records, state.runId);
    assert.equal(records.filter((record) => record.event === "model_failed").length, 1, shown);
    assert.equal(records.filter((record) => record.event === "model_called").length, 0, shown);
    assert.deepEqual(verifyAudit(records), []);
  }
}
