// The webhook's secrets: from --webhook-secret-file or notify.secret, checked, never shown.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { Webhook } from "standardwebhooks";
import { isLeashError } from "../../src/index.js";
import { readWebhookSecretFile, webhookSecrets } from "../../src/worker/index.js";
import { signWebhook } from "../../src/notify/sign-webhook.js";
import { newSecret } from "./notify-helpers.js";

function secretFile(text: string, mode: number): { path: string; remove: () => void } {
  const folder = mkdtempSync(join(tmpdir(), "leash-secret-"));
  const path = join(folder, "webhook-secret");
  writeFileSync(path, text);
  chmodSync(path, mode);
  return { path, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

test("reads one secret per non-empty line, surrounding whitespace ignored, and signs with each", (t) => {
  const [first, second] = [newSecret(), newSecret()];
  const file = secretFile(`\n  ${first}  \r\n\n${second}\n\n`, 0o600);
  t.after(file.remove);
  const secrets = readWebhookSecretFile(file.path);
  assert.equal(secrets.count, 2);
  const body = JSON.stringify({ type: "run_ended", timestamp: "2026-01-01T00:00:00.000Z", data: {} });
  const headers = signWebhook(secrets, { id: "msg_1", at: new Date(), body });
  assert.equal(headers["content-type"], "application/json");
  for (const secret of [first, second]) assert.doesNotThrow(() => new Webhook(secret).verify(body, headers));
});

test("refuses a secret file that its group or others may read, saying to chmod 600 it", (t) => {
  for (const mode of [0o644, 0o640, 0o604]) {
    const secret = newSecret();
    const file = secretFile(`${secret}\n`, mode);
    t.after(file.remove);
    assert.throws(
      () => readWebhookSecretFile(file.path),
      (error) => {
        assert.ok(isLeashError(error, "invalid_option"));
        assert.ok(error.message.includes(`chmod 600 ${file.path}`), error.message);
        assert.ok(!error.message.includes(secret.slice(6, 20)), "the secret is never quoted");
        return true;
      },
    );
  }
});

test("refuses what is not a whsec_ secret, without quoting it", (t) => {
  const cases = [
    "not-a-secret-at-all-but-long-enough-to-matter",
    "whsec_***notbase64***",
    `whsec_${Buffer.from("short").toString("base64")}`,
    "",
  ];
  for (const text of cases) {
    const file = secretFile(`${text}\n`, 0o600);
    t.after(file.remove);
    assert.throws(
      () => readWebhookSecretFile(file.path),
      (error) => {
        assert.ok(isLeashError(error, "invalid_option"));
        if (text.length > 8) assert.ok(!error.message.includes(text.slice(6)), error.message);
        return true;
      },
    );
  }
  assert.throws(() => readWebhookSecretFile(join(tmpdir(), "no-such-leash-secret")), { code: "invalid_option" });
});

test("notify.secret takes one whsec_ string or several, and the secrets never show when printed", () => {
  const [first, second] = [newSecret(), newSecret()];
  assert.equal(webhookSecrets(first).count, 1);
  const both = webhookSecrets([first, second]);
  assert.equal(both.count, 2);
  for (const shown of [String(both), JSON.stringify({ both }), inspect(both, { showHidden: true, depth: 5 })]) {
    assert.ok(!shown.includes(first.slice(6)) && !shown.includes(second.slice(6)), shown);
  }
  for (const bad of [[], "plain", ["whsec_", first], 42 as never])
    assert.throws(() => webhookSecrets(bad), { code: "invalid_option" });
});
