// `new Worker({ ..., notify })` delivers the store's outbox while it runs; `leash mcp serve`'s
// config takes `notify` the same way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Approval, MemoryStore } from "../../src/index.js";
import { Worker } from "../../src/worker/index.js";
import { checkGatewayConfig } from "../../src/gateway/gateway-config.js";
import { newSecret, startReceiver, until, writeAgent } from "./notify-helpers.js";

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

test("a worker with notify delivers the request's event and, once it resumes the run, its end", async (t) => {
  const secret = newSecret();
  const receiver = await startReceiver([secret], () => 200);
  t.after(() => receiver.close());
  const store = new MemoryStore();
  const agent = writeAgent(store);
  const paused = await agent.run("write a note", { runId: "noted" });
  const worker = new Worker({
    agent,
    store,
    pollMs: 10,
    logger: quiet,
    notify: { url: receiver.url, secret, base: "https://inbox.example.com" },
  });
  void worker.start();
  t.after(() => worker.stop());
  await until(() => receiver.seen.size === 1, "the request's event arrives");
  await store.answer(paused.runId, Approval.grant(paused.pending!.digest, "allen"));
  await until(() => receiver.seen.size === 2, "the end's event arrives");
  const types = receiver.deliveries.map((delivery) => (JSON.parse(delivery.body) as { type: string }).type);
  assert.deepEqual(types, ["approval_requested", "run_ended"]);
  assert.ok(receiver.deliveries.every((delivery) => delivery.verified[0] === true));
  const url = (JSON.parse(receiver.deliveries[1]?.body ?? "") as { data: { url: string } }).data.url;
  assert.equal(url, "https://inbox.example.com/runs/noted");
  await worker.stop();
});

test("a worker refuses notify with an unknown key, a bad secret or URL, or a store without an outbox", () => {
  const store = new MemoryStore();
  const agent = writeAgent(store);
  const secret = newSecret();
  const cases: unknown[] = [
    { url: "http://127.0.0.1:1/", secret, bsae: "http://x" },
    { url: "http://127.0.0.1:1/", secret: "hunter2" },
    { url: "file:///etc/passwd", secret },
    { url: "http://127.0.0.1:1/", secret, base: "http://inbox.example.com/?q=1" },
  ];
  for (const notify of cases)
    assert.throws(() => new Worker({ agent, store, notify: notify as never }), { code: "invalid_option" });
  const noOutbox = { load: store.load.bind(store), list: store.list.bind(store) };
  assert.throws(
    () => new Worker({ agent, store: noOutbox as never, notify: { url: "http://127.0.0.1:1/", secret } }),
    /keeps no outbox/,
  );
});

test("the gateway config's notify takes a secret file beside the config, or a secret, and refuses a readable file", (t) => {
  const folder = mkdtempSync(join(tmpdir(), "leash-gateway-notify-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const secret = newSecret();
  writeFileSync(join(folder, "secret"), `${secret}\n`);
  chmodSync(join(folder, "secret"), 0o600);
  const servers = { s: { command: "node" } };
  const config = checkGatewayConfig(
    { servers, notify: { url: "https://hooks.example.com/leash", secretFile: "secret" } },
    "gateway.json",
    folder,
  );
  assert.equal(config.notify?.url, "https://hooks.example.com/leash");
  assert.equal(config.notify?.base, "http://127.0.0.1:7777");
  assert.equal(config.notify?.secrets.count, 1);
  const withInbox = checkGatewayConfig(
    { servers, approval: { inbox: "https://inbox.example.com/" }, notify: { url: "https://h.example.com/", secret } },
    "gateway.json",
    folder,
  );
  assert.equal(withInbox.notify?.base, "https://inbox.example.com", "approval.inbox is the default base");
  chmodSync(join(folder, "secret"), 0o644);
  const refused: unknown[] = [
    { url: "https://h.example.com/", secretFile: "secret" },
    { url: "https://h.example.com/", secret, secretFile: "secret" },
    { url: "https://h.example.com/" },
    { url: "https://h.example.com/", secret, sceret: 1 },
    { url: "ftp://h.example.com/", secret },
  ];
  for (const notify of refused)
    assert.throws(
      () => checkGatewayConfig({ servers, notify }, "gateway.json", folder),
      (error: Error) => {
        assert.equal((error as { code?: string }).code, "invalid_config");
        assert.ok(!error.message.includes(secret.slice(6)), "the secret is never quoted");
        return true;
      },
    );
});
