// A person's inbox, end to end in a real browser: the real `leash serve` on a real store, runs started
// and resumed by the app in other processes, and headless chromium doing what the approver does.
import assert from "node:assert/strict";
import { agentModule, eachStore, leashOn, pausedRunPage, pendingOf } from "./support.js";
import { runToEnd, submit, useBrowser, waitLive } from "./support.js";
import { bin } from "../cli/cli-helpers.js";

const browser = useBrowser();

eachStore("a deny with a note records the note and the signed-in approver's name", async (t, target) => {
  const { runId, page } = await pausedRunPage(t, browser(), target, { goal: "Pay invoice INV-2042" });
  const { digest } = await pendingOf(target, runId);

  await page.locator('form#answer textarea[name="note"]').fill("Not this month: the budget is spent.");
  const answered = await submit(page, "deny");
  assert.equal(answered.status(), 303);
  await page.locator("[role=status]").waitFor();
  const state = await target.store.load(runId);
  assert.deepEqual(
    state?.answers.map(({ digest, granted, approver, note }) => ({ digest, granted, approver, note })),
    [{ digest, granted: false, approver: "noor", note: "Not this month: the budget is spent." }],
  );
  assert.deepEqual(target.payments(), [], "nothing was paid");
});

eachStore(
  "an approval from a page whose request changed since it opened is refused and runs nothing",
  async (t, target) => {
    const { runId, page } = await pausedRunPage(t, browser(), target, { goal: "Pay invoice INV-2043" });
    const shown = await pendingOf(target, runId);
    // The person is typing a note, so the page keeps what it showed, while someone else denies the
    // request from a terminal and the app asks again, for more: a new request with a new digest.
    await waitLive(page);
    await page.locator('form#answer textarea[name="note"]').fill("Looks right to me.");
    await leashOn(target, ["deny", runId, "--as", "ops"]);
    await leashOn(target, ["resume", runId, "--agent", agentModule]);
    const now = await pendingOf(target, runId);
    assert.notEqual(now.digest, shown.digest);
    assert.deepEqual(now.args, { amount: 10000 });
    // The page keeps the note being typed, and says the run changed rather than swapping the request.
    await page.locator("[role=status]", { hasText: "changed" }).waitFor();
    assert.equal(await page.locator('form#answer textarea[name="note"]').inputValue(), "Looks right to me.");
    assert.equal(await page.locator('form#answer input[name="digest"]').inputValue(), shown.digest);

    const refused = await submit(page, "approve");
    assert.equal(refused.status(), 409);
    const alert = await page.locator("[role=alert]").innerText();
    assert.match(alert, /changed/);
    assert.match(alert, /stale_state/);
    const state = await target.store.load(runId);
    assert.equal(state?.status, "awaiting_approval");
    assert.deepEqual(state?.answers, [], "nothing was recorded for the new request");
    const worker = await runToEnd([bin, "worker", "--agent", agentModule, "--once", ...target.args], {
      cwd: target.cwd,
      env: target.env,
    });
    assert.equal(worker.status, 0, worker.stderr);
    assert.deepEqual(target.payments(), [], "nothing ran");
  },
);
