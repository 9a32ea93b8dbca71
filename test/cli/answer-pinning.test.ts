import { isDeepStrictEqual } from "node:util";
import { test } from "node:test";
import assert from "node:assert/strict";
import { hostname, userInfo } from "node:os";
import { Approval } from "../../src/index.js";
import { errorLine, leash } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";
import { payAgent } from "./pay-agent.js";

eachStore(
  "approve --digest refuses a request that changed since it was reviewed, and records nothing",
  async (t, target) => {
    const agent = payAgent(target.store);
    const paused = await agent.run("pay the invoice");
    const reviewed = paused.pending!.digest;
    const show = leash(["show", paused.runId, ...target.args], { cwd: target.cwd });
    assert.equal(show.status, 0, show.stderr);
    assert.ok(show.stdout.includes(`digest: ${reviewed}`), "show prints the full digest to pin");

    // Meanwhile someone else denies it, and the model asks for ten thousand instead.
    await target.store.answer(paused.runId, Approval.deny(reviewed, "ops"));
    const changed = await agent.resume(paused.runId);
    assert.equal(changed.status, "awaiting_approval");
    assert.notEqual(changed.pending!.digest, reviewed);

    for (const verb of ["approve", "deny"]) {
      const stale = leash([verb, paused.runId, "--as", "noor", "--digest", reviewed.slice(0, 12), ...target.args], {
        cwd: target.cwd,
      });
      assert.equal(stale.status, 2, stale.stderr);
      assert.equal(errorLine(stale).code, "stale_state");
    }
    const after = await target.store.load(paused.runId);
    assert.deepEqual(
      after!.answers.map((answer) => answer.approver),
      [],
      "nothing was recorded",
    );
    assert.equal(after!.revision, changed.revision);

    const pinned = leash(
      ["approve", paused.runId, "--as", "noor", "--digest", changed.pending!.digest, ...target.args, "--json"],
      { cwd: target.cwd },
    );
    assert.equal(pinned.status, 0, pinned.stderr);
    const answered = JSON.parse(pinned.stdout) as { answer: { digest: string } };
    assert.equal(answered.answer.digest, changed.pending!.digest);
  },
);

eachStore("a digest prefix must have at least 12 hex digits", async (t, target) => {
  const paused = await payAgent(target.store).run("pay the invoice");
  const digest = paused.pending!.digest;
  for (const given of [digest.slice(0, 11), `${digest.slice(0, 11)}x`, ""]) {
    const refused = leash(["approve", paused.runId, "--as", "noor", "--digest", given, ...target.args], {
      cwd: target.cwd,
    });
    assert.equal(refused.status, 2, refused.stderr);
    assert.equal(errorLine(refused).code, "invalid_option");
  }
  assert.deepEqual((await target.store.load(paused.runId))!.answers, []);
  const denied = leash(
    ["deny", paused.runId, "--as", "noor", "--digest", digest.slice(0, 12).toUpperCase(), ...target.args],
    {
      cwd: target.cwd,
    },
  );
  assert.equal(denied.status, 0, denied.stderr);
  assert.match(denied.stdout, new RegExp(`Denied .* digest ${digest}`, "s"));
});

eachStore("approve without --digest prints the full digest it answered", async (t, target) => {
  const paused = await payAgent(target.store).run("pay the invoice");
  const approve = leash(["approve", paused.runId, "--as", "noor", ...target.args], { cwd: target.cwd });
  assert.equal(approve.status, 0, approve.stderr);
  assert.ok(approve.stdout.includes(paused.pending!.digest), approve.stdout);
});

/** The operating-system user as the CLI names it. */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.LOGNAME ?? String(process.getuid?.());
  }
}

eachStore(
  "an answer from the command line records the OS user and host beside the name, and show prints them",
  async (t, target) => {
    const paused = await payAgent(target.store).run("pay the invoice");
    const approve = leash(["approve", paused.runId, "--as", "noor", ...target.args], { cwd: target.cwd });
    assert.equal(approve.status, 0, approve.stderr);
    const origin = { via: "cli", user: osUser(), host: hostname() };
    const state = await target.store.load(paused.runId);
    const answer = state!.answers[0] as unknown as { approver: string; origin?: unknown };
    assert.equal(answer.approver, "noor");
    assert.deepEqual(answer.origin, origin);
    const audited = (await target.store.read(paused.runId)).filter((record) => record.event === "approval_answered");
    assert.ok(
      audited.some((record) => isDeepStrictEqual((record.data as { origin?: unknown }).origin, origin)),
      "the approval_answered record holds the origin",
    );

    const show = leash(["show", paused.runId, ...target.args], { cwd: target.cwd });
    assert.equal(show.status, 0, show.stderr);
    assert.ok(
      show.stdout.includes(
        `approved by "noor"; origin: via cli, os user ${JSON.stringify(origin.user)}, host ${JSON.stringify(origin.host)}`,
      ),
      show.stdout,
    );
  },
);

eachStore("approve --json reports the origin it recorded with the answer", async (t, target) => {
  const paused = await payAgent(target.store).run("pay the invoice");
  const approve = leash(["approve", paused.runId, "--as", "noor", ...target.args, "--json"], { cwd: target.cwd });
  assert.equal(approve.status, 0, approve.stderr);
  assert.deepEqual((JSON.parse(approve.stdout) as { origin: unknown }).origin, {
    via: "cli",
    user: osUser(),
    host: hostname(),
  });
});

test("--as is required and may not be blank", () => {
  // Checked before any store is opened: no database is needed to refuse it.
  const blank = leash(["approve", "run-1", "--as", " ", "--db", "nowhere.db"], { cwd: process.cwd() });
  assert.equal(blank.status, 2);
  assert.equal(errorLine(blank).code, "invalid_option");
});
