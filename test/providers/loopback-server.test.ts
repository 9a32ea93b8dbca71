// The plumbing the three loopback provider servers share (test/providers/support/loopback-server.ts),
// checked on each of them: another route, a body that is not JSON and a request past the script are
// refused and recorded with the provider's error body, a scripted HTTP error is not a refusal, and a
// client that drops a stalled stream is counted.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ModelRequest } from "../../src/index.js";
import { loadHarness } from "./support/harnesses.js";
import { loopbackFor, signal } from "./support/loopback-test.js";

// Each harness with its route, relative to the base URL its SDK is given.
const SERVERS = [
  { name: "openaiChat", route: "/chat/completions" },
  { name: "openaiResponses", route: "/responses" },
  { name: "anthropicMessages", route: "/v1/messages" },
] as const;

const request: ModelRequest = { system: "You help.", messages: [{ role: "user", content: "Hi." }], tools: [] };

/** The message of a provider error body: OpenAI's `{ error: { message } }`, Anthropic's `{ type: "error", error: { message } }`. */
async function errorMessage(response: Response): Promise<string> {
  const body = (await response.json()) as { error?: { message?: unknown } };
  return String(body.error?.message);
}

const post = (url: string, body: string): Promise<Response> =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });

for (const { name, route } of SERVERS) {
  test(`the ${name} loopback server refuses another route with a 404 and a body that is not JSON with a 400, and records both`, async (t) => {
    const harness = await loadHarness(name);
    const server = await loopbackFor(t, harness);
    const elsewhere = await post(`${server.url}/nowhere`, "{}");
    assert.equal(elsewhere.status, 404);
    assert.match(await errorMessage(elsewhere), /nowhere/);
    const garbled = await post(`${server.url}${route}`, "{not json");
    assert.equal(garbled.status, 400);
    assert.match(await errorMessage(garbled), /not JSON/);
    assert.equal(server.refusals.length, 2);
    assert.deepEqual(server.requests, [], "a body that is not JSON is never recorded as a request");
  });

  test(`the ${name} loopback server answers a scripted 503 as the API does, without a refusal, and a request past the script with a recorded 500`, async (t) => {
    const harness = await loadHarness(name);
    const server = await loopbackFor(t, harness);
    server.reply({ type: "error", status: 503, message: "Busy for a moment." });
    const model = harness.client(server.url, { stream: false });
    await assert.rejects(model.generate(request, { signal: signal() }), { status: 503 });
    assert.deepEqual(server.refusals, []);
    await assert.rejects(model.generate(request, { signal: signal() }), { status: 500 });
    assert.deepEqual(server.refusals, ["A request came past the end of the script."]);
    assert.equal(server.requests.length, 2);
    assert.equal(server.closedEarly, 0);
  });

  test(`the ${name} loopback server counts a stalled stream the client drops as closed early`, async (t) => {
    const harness = await loadHarness(name);
    const server = await loopbackFor(t, harness);
    server.reply({ type: "stall", text: "Thinking it over at length" });
    const controller = new AbortController();
    const model = harness.client(server.url, { stream: true });
    const call = model.generate(request, { signal: controller.signal, onText: () => controller.abort() });
    await assert.rejects(call);
    await server.stallClosed();
    assert.equal(server.closedEarly, 1);
    assert.deepEqual(server.refusals, []);
  });
}
