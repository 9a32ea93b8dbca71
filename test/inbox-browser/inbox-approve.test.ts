// A person's inbox, end to end in a real browser: the real `leash serve` on a real store, runs started
// and resumed by the app in other processes, and headless chromium doing what the approver does. The
// whole path of an approval is here; inbox.test.ts and inbox-views.test.ts hold the others.
import assert from "node:assert/strict";
import { agentModule, eachStore, freshPage, markDocument, pendingOf, sameDocument, screenshot } from "./support.js";
import { addApprover, runToEnd, signIn, startInbox, startPausedRun, submit, useBrowser, waitLive } from "./support.js";
import { bin } from "../cli/cli-helpers.js";

const browser = useBrowser();

eachStore(
  "an approver sees a paused run appear, reads its exact action, approves it, and the page shows a worker ran it once",
  async (t, target) => {
    const token = await addApprover(target, "noor");
    const inbox = await startInbox(t, target);
    const page = await freshPage(t, browser());
    await signIn(page, inbox.url, token);
    await startPausedRun(target, { goal: "Pay invoice INV-2039 from Northwind Paper", memo: "INV-2039" });
    await startPausedRun(target, { goal: "Pay invoice INV-2040 from Contoso Freight", memo: "INV-2040" });
    await page.goto(new URL("?status=awaiting_approval", inbox.url).href);
    await page.locator("tr[data-run-id]").nth(1).waitFor();
    await waitLive(page);
    await markDocument(page);

    const runId = await startPausedRun(target, {
      goal: "Pay invoice INV-2041 from Acme Tools",
      memo: "INV-2041",
      reason: "The invoice matches purchase order PO-88 and is due on Friday.",
    });
    const row = page.locator(`tr[data-run-id="${runId}"]`);
    await row.waitFor();
    assert.equal(await row.getAttribute("data-status"), "awaiting_approval");
    assert.ok(await sameDocument(page), "the paused run appears without a reload");
    await screenshot(page, "runs", target.kind);

    await Promise.all([page.waitForURL(`**/runs/${runId}`), row.locator(`a[href="/runs/${runId}"]`).click()]);
    const pending = await pendingOf(target, runId);
    const section = page.locator("section[data-field=pending]");
    assert.equal(await section.getAttribute("data-digest"), pending.digest);
    assert.match(await section.locator("[data-field=tool]").innerText(), /\bpay\b/);
    assert.deepEqual(JSON.parse(await section.locator("pre[data-field=args]").innerText()), pending.args);
    assert.deepEqual(pending.args, { amount: 10, memo: "INV-2041" });
    assert.equal(
      await section.locator("[data-field=reason]").innerText(),
      "The invoice matches purchase order PO-88 and is due on Friday.",
    );
    assert.match(await section.locator("[data-field=effect]").innerText(), /\bwrite\b/);
    for (const scope of pending.scopes)
      assert.ok((await section.locator("[data-field=scopes]").innerText()).includes(scope));
    assert.ok((await section.locator("[data-field=digest]").innerText()).includes(pending.digest));
    assert.equal(await page.locator('form#answer input[name="digest"]').inputValue(), pending.digest);
    assert.equal(await page.locator("[data-field=status]").getAttribute("data-status"), "awaiting_approval");
    await screenshot(page, "run", target.kind);

    const answered = await submit(page, "approve");
    assert.equal(answered.status(), 303);
    assert.match(await page.locator("[role=status]").innerText(), /recorded/);
    const state = await target.store.load(runId);
    assert.equal(state?.answers.length, 1);
    assert.deepEqual(
      { digest: state?.answers[0]?.digest, granted: state?.answers[0]?.granted, approver: state?.answers[0]?.approver },
      { digest: pending.digest, granted: true, approver: "noor" },
    );
    assert.equal(state?.answers[0]?.origin?.via, "leash-serve");
    assert.equal(state?.answers[0]?.origin?.user, "noor");

    await waitLive(page);
    await markDocument(page);
    const worker = await runToEnd([bin, "worker", "--agent", agentModule, "--once", ...target.args], {
      cwd: target.cwd,
      env: target.env,
    });
    assert.equal(worker.status, 0, worker.stderr);
    assert.deepEqual(target.payments(), [10], "the approved payment ran once");
    await page.locator("[data-field=status][data-status=completed]").waitFor();
    assert.match(await page.locator("[data-field=status]").innerText(), /completed/);
    assert.ok(await sameDocument(page), "the page shows the run completed without a reload");
    assert.match(await page.locator("[data-field=chain]").innerText(), /^verified/);
    assert.ok((await page.locator("ol[data-field=trace] > li[data-step]").count()) >= 1, "the trace shows the steps");
    assert.deepEqual(target.payments(), [10]);
    assert.equal(await inbox.stop(), 0, "SIGTERM closes the inbox cleanly");
  },
);
