// `leash serve --webhook` as a real child process on SQLite and PostgreSQL: killed with SIGKILL
// before its event was delivered, started again, and the event arrives under the same id; and
// `leash notifications` lists the outbox.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bin, errorLine, leash, requireBuiltBin } from "../cli/cli-helpers.js";
import { eachStore } from "../cli/cli-stores.js";
import type { CliStore } from "../cli/cli-stores.js";
import { newSecret, startReceiver, until, writeAgent } from "./notify-helpers.js";

interface Served {
  url: string;
  kill(): Promise<void>;
}

/** Starts `leash serve --port 0 --json --webhook ...` and reads the URL it prints. */
async function serveWithWebhook(target: CliStore, extra: string[]): Promise<Served> {
  requireBuiltBin();
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--json", ...target.args, ...extra], {
    cwd: target.cwd,
    env: { ...process.env, LEASH_DEBUG: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.includes("\n")) resolve(stdout.slice(0, stdout.indexOf("\n")));
    });
    void exited.then(() => reject(new Error(`leash serve exited before printing its URL: ${stderr}`)));
  });
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

function secretFile(target: CliStore, secret: string): string {
  const path = join(target.cwd, "webhook-secret");
  writeFileSync(path, `${secret}\n`);
  chmodSync(path, 0o600);
  return path;
}

interface Listed {
  notifications: {
    id: string;
    type: string;
    runId: string;
    status: string;
    attempts: number;
    lastError: string | null;
  }[];
  next: string | null;
}

function listed(target: CliStore, args: string[] = []): Listed {
  const result = leash(["notifications", "--json", ...target.args, ...args], { cwd: target.cwd });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout) as Listed;
}

eachStore(
  "a sender killed before delivery succeeds sends the event again under the same id once restarted",
  async (t, target) => {
    const secret = newSecret();
    const receiver = await startReceiver([secret], (n) => (n === 0 ? 500 : 200));
    t.after(() => receiver.close());
    const paused = await writeAgent(target.store).run("write a note", { runId: "kill-me" });
    assert.equal(paused.status, "awaiting_approval");
    const file = secretFile(target, secret);
    const args = ["--webhook", receiver.url, "--webhook-secret-file", file];
    const first = await serveWithWebhook(target, args);
    t.after(() => first.kill());
    // Killed once its failed first attempt is recorded, before the retry 5 s later.
    await until(() => listed(target).notifications.some((event) => event.attempts === 1), "the failure is recorded");
    await first.kill();
    assert.equal(receiver.seen.size, 0, "nothing delivered yet");
    const second = await serveWithWebhook(target, args);
    t.after(() => second.kill());
    await until(() => receiver.seen.size === 1, "the event arrives after the restart");
    // The receiver's 200 and the store's record of it are two moments: killed after both.
    await until(() => listed(target, ["--status", "delivered"]).notifications.length === 1, "the delivery is recorded");
    await second.kill();
    assert.ok(receiver.deliveries.length >= 2);
    assert.equal(new Set(receiver.deliveries.map((delivery) => delivery.id)).size, 1, "one webhook-id throughout");
    assert.ok(receiver.deliveries.every((delivery) => delivery.verified[0] === true));
    const body = JSON.parse(receiver.deliveries.at(-1)?.body ?? "") as { data: { url: string } };
    assert.equal(body.data.url, `${second.url.replace(/\/$/, "")}/runs/kill-me`, "the run's page where serve listens");
    const [event] = listed(target, ["--status", "delivered"]).notifications;
    assert.equal(event?.id, receiver.deliveries[0]?.id);
    assert.equal(event?.attempts, 2);
  },
);

eachStore(
  "leash notifications lists the outbox newest first, --failed the events given up, a page at a time",
  async (t, target) => {
    const agent = writeAgent(target.store);
    await agent.run("write a note", { runId: "first" });
    await agent.run("write a note", { runId: "second" });
    const outbox = target.store;
    const [older] = (await outbox.notifications!({})).events.filter((event) => event.runId === "first");
    await outbox.settleNotification!(older!.id, {
      delivered: false,
      error: "HTTP 500\u001b[2J",
      attempts: 9,
      nextAttemptAt: null,
    });
    const all = listed(target);
    assert.deepEqual(
      all.notifications.map((event) => `${event.runId} ${event.status}`),
      ["second pending", "first failed"],
    );
    assert.equal(all.next, null);
    const failed = listed(target, ["--failed"]);
    assert.deepEqual(
      failed.notifications.map((event) => [event.id, event.attempts, event.status]),
      [[older!.id, 9, "failed"]],
    );
    const page = listed(target, ["--limit", "1"]);
    assert.equal(page.notifications.length, 1);
    assert.equal(typeof page.next, "string");
    assert.deepEqual(
      listed(target, ["--limit", "1", "--cursor", page.next as string]).notifications.map((e) => e.runId),
      ["first"],
    );
    const text = leash(["notifications", ...target.args, "--limit", "1"], { cwd: target.cwd });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^ID\s+TYPE\s+RUN\s+STATUS\s+ATTEMPTS\s+NEXT ATTEMPT\s+LAST ERROR$/m);
    assert.match(text.stdout, /More: leash notifications .*--limit 1 --cursor \S+/);
    const failedText = leash(["notifications", ...target.args, "--failed"], { cwd: target.cwd });
    assert.ok(!failedText.stdout.includes("\u001b"), "run data is escaped");
    assert.match(failedText.stdout, /HTTP 500\\u001b\[2J|HTTP 500\\x1b\[2J|HTTP 500.*2J/);
    const clash = leash(["notifications", ...target.args, "--failed", "--status", "pending"], { cwd: target.cwd });
    assert.equal(clash.status, 2);
    assert.equal(errorLine(clash).code, "invalid_option");
  },
);

test("leash serve refuses --webhook without a secret file, the other way round, and a secret file others can read", async (t) => {
  const { openCliStore } = await import("../cli/cli-stores.js");
  const target = openCliStore(t, "sqlite");
  await writeAgent(target.store).run("write a note");
  const secret = newSecret();
  const file = secretFile(target, secret);
  const cases: string[][] = [
    ["--webhook", "http://127.0.0.1:9/hook"],
    ["--webhook-secret-file", file],
    ["--webhook", "ftp://127.0.0.1/hook", "--webhook-secret-file", file],
  ];
  for (const extra of cases) {
    const result = leash(["serve", "--port", "0", ...target.args, ...extra], { cwd: target.cwd });
    assert.equal(result.status, 2, result.stderr);
    assert.equal(errorLine(result).code, "invalid_option");
  }
  chmodSync(file, 0o644);
  const readable = leash(
    ["serve", "--port", "0", ...target.args, "--webhook", "http://127.0.0.1:9/hook", "--webhook-secret-file", file],
    { cwd: target.cwd },
  );
  assert.equal(readable.status, 2);
  const { message, code } = errorLine(readable);
  assert.equal(code, "invalid_option");
  assert.ok(message.includes(`chmod 600 ${file}`), message);
  assert.ok(!readable.stderr.includes(secret.slice(6)), "the secret is never printed");
});
