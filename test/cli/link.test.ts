import assert from "node:assert/strict";
import { saveGateSession } from "../helpers/gate-session-state.js";
import { addApprover, pausedRun } from "../inbox/serve-helpers.js";
import { errorLine, leash } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";
import { payAgent } from "./pay-agent.js";
import type { CliStore } from "./cli-stores.js";

function link(target: CliStore, args: string[]) {
  return leash(["link", ...args, ...target.args], { cwd: target.cwd });
}

eachStore(
  "leash link --json prints { url, expiresAt }: a link of the inbox, for an hour by default",
  async (_t, target) => {
    const run = await pausedRun(target);
    await addApprover(target, "noor");
    const before = Date.now();
    const made = link(target, [run.runId, "--as", "noor", "--json"]);
    const after = Date.now();
    assert.equal(made.status, 0, made.stderr);
    const printed = JSON.parse(made.stdout) as Record<string, string>;
    assert.deepEqual(Object.keys(printed).sort(), ["expiresAt", "url"]);
    assert.match(printed.url ?? "", /^http:\/\/127\.0\.0\.1:7777\/link\/leash_lk_[A-Za-z0-9_-]{43}$/);
    const expires = Date.parse(printed.expiresAt ?? "");
    assert.ok(expires >= before + 3_600_000 && expires <= after + 3_600_000, printed.expiresAt);

    const other = link(target, [
      run.runId,
      "--as",
      "noor",
      "--for",
      "7d",
      "--base",
      "https://inbox.example/team/",
      "--json",
    ]);
    assert.equal(other.status, 0, other.stderr);
    const second = JSON.parse(other.stdout) as { url: string; expiresAt: string };
    assert.match(second.url, /^https:\/\/inbox\.example\/team\/link\/leash_lk_/);
    assert.notEqual(second.url.split("/link/")[1], printed.url?.split("/link/")[1], "each link has its own token");
    assert.ok(Date.parse(second.expiresAt) >= before + 7 * 86_400_000);

    const text = link(target, [run.runId, "--as", "noor", "--for", "30m"]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^http:\/\/127\.0\.0\.1:7777\/link\/leash_lk_\S+\n/);
    assert.match(text.stdout, /answers step 0 \(tool pay\) of run .* as noor, once, until/);
  },
);

eachStore(
  "leash link refuses a --for over 7 days, or not a duration, and a --base that is no http URL",
  async (_t, target) => {
    const run = await pausedRun(target);
    await addApprover(target, "noor");
    for (const extra of [
      ["--for", "8d"],
      ["--for", "169h"],
      ["--for", "90s"],
      ["--for", "1.5h"],
      ["--for", "0m"],
      ["--base", "ftp://inbox.example"],
      ["--base", "not a url"],
      ["--base", "http://inbox.example/?next=x"],
    ]) {
      const refused = link(target, [run.runId, "--as", "noor", ...extra]);
      assert.equal(refused.status, 2, extra.join(" "));
      assert.equal(errorLine(refused).code, "invalid_option", extra.join(" "));
      assert.equal(refused.stdout, "");
    }
  },
);

eachStore("leash link refuses a name that is no person of leash approvers (role_refused)", async (_t, target) => {
  const run = await pausedRun(target);
  const none = link(target, [run.runId, "--as", "noor"]);
  assert.equal(none.status, 2);
  assert.equal(errorLine(none).code, "role_refused");
  await addApprover(target, "noor");
  const other = link(target, [run.runId, "--as", "mallory", "--json"]);
  assert.equal(other.status, 2);
  assert.match(other.stderr, /"code":"role_refused"/);
  assert.equal(other.stdout, "");
});

eachStore(
  "leash link of a run that waits on nothing is stale_state; of a missing run, run_not_found",
  async (_t, target) => {
    await addApprover(target, "noor");
    const run = await pausedRun(target);
    const denied = leash(["deny", run.runId, "--as", "ops", ...target.args], { cwd: target.cwd });
    assert.equal(denied.status, 0, denied.stderr);
    // Denied twice: the run ends, waiting on nothing.
    const resumed = await payAgent(target.store).resume(run.runId);
    assert.equal(resumed.status, "awaiting_approval");
    const denyAgain = leash(["deny", run.runId, "--as", "ops", ...target.args], { cwd: target.cwd });
    assert.equal(denyAgain.status, 0, denyAgain.stderr);
    const ended = await payAgent(target.store).resume(run.runId);
    assert.notEqual(ended.status, "awaiting_approval");
    const stale = link(target, [run.runId, "--as", "noor"]);
    assert.equal(stale.status, 2);
    assert.equal(errorLine(stale).code, "stale_state");
    const missing = link(target, ["no-such-run", "--as", "noor"]);
    assert.equal(errorLine(missing).code, "run_not_found");
  },
);

eachStore("leash link of a gate session with several waiting calls needs --step or --call", async (_t, target) => {
  await addApprover(target, "noor");
  const { waiting } = await saveGateSession(target.store, "gate-link");
  const unpicked = link(target, ["gate-link", "--as", "noor"]);
  assert.equal(unpicked.status, 2);
  assert.equal(errorLine(unpicked).code, "invalid_option");
  const byStep = link(target, ["gate-link", "--as", "noor", "--step", "1"]);
  assert.equal(byStep.status, 0, byStep.stderr);
  assert.match(byStep.stdout, /answers step 1 \(tool pay\)/);
  const byCall = link(target, ["gate-link", "--as", "noor", "--call", "call_a", "--json"]);
  assert.equal(byCall.status, 0, byCall.stderr);
  assert.equal(waiting.length, 2);
});
