// The run page after an answer, in a real browser: the approver who answered reads what they
// answered and that the app has yet to act, with no buttons left; another approver's open page
// shows that answer live, by name, and still offers its own buttons.
import assert from "node:assert/strict";
import { addApprover, eachStore, freshPage, pausedRunPage, signIn, submit, useBrowser, waitLive } from "./support.js";

const browser = useBrowser();

eachStore(
  "after approving, the page says answered by you and offers no buttons; another approver sees it live by name",
  async (t, target) => {
    const { runId, inbox, page } = await pausedRunPage(t, browser(), target, { goal: "Pay invoice INV-77" });
    const mia = await freshPage(t, browser());
    await signIn(mia, inbox.url, await addApprover(target, "mia"));
    await mia.goto(new URL(`runs/${runId}`, inbox.url).href);
    await waitLive(mia);

    const answered = await submit(page, "approve");
    assert.equal(answered.status(), 303);
    const mine = page.locator("[data-field=answered]");
    await mine.waitFor();
    assert.match(await mine.innerText(), /answered by you: approved, waiting for the app to act/);
    assert.equal(await page.locator("form#answer").count(), 0, "no answer form once answered");
    assert.equal(await page.locator('button[name="decision"]').count(), 0, "no buttons once answered");
    assert.equal((await target.store.load(runId))?.status, "awaiting_approval");

    // Mia's page, open all along, shows Noor's answer without a reload, and still lets her answer.
    const theirs = mia.locator('ul.answers li[data-approver="noor"]');
    await theirs.waitFor();
    assert.match(await theirs.innerText(), /answered by noor: approved/);
    // Approve, deny, and approve while allowing more calls like this one.
    assert.deepEqual(
      await mia
        .locator('form#answer button[name="decision"]')
        .evaluateAll((buttons) => buttons.map((button) => (button as unknown as { value: string }).value)),
      ["approve", "deny", "approve_and_allow"],
    );

    // Mia denies: Noor's page then shows both answers, hers as a denial that wins.
    await submit(mia, "deny");
    await page.reload();
    const answers = await page.locator("ul.answers li").allInnerTexts();
    assert.ok(
      answers.some((text) => /answered by you: approved/.test(text)),
      answers.join("\n"),
    );
    assert.ok(
      answers.some((text) => /answered by mia: denied/.test(text)),
      answers.join("\n"),
    );
  },
);
