// The live refresh of a run's page never moves a different request under the person's pointer: the
// real `leash serve`, the app's runs in processes of their own, and headless chromium.
import assert from "node:assert/strict";
import {
  agentModule,
  eachStore,
  leashOn,
  markDocument,
  pausedRunPage,
  pendingOf,
  sameDocument,
  submit,
  useBrowser,
  waitLive,
} from "./support.js";

const browser = useBrowser();

eachStore(
  "a request that changes under the pointer is held, its buttons disabled, until the person asks to see the new one",
  async (t, target) => {
    const { runId, page } = await pausedRunPage(t, browser(), target, { goal: "Pay invoice INV-2045" });
    const shown = await pendingOf(target, runId);
    await waitLive(page);
    await markDocument(page);
    const approve = page.locator('form#answer button[name="decision"][value="approve"]');
    // The person reads the request, the pointer resting on Approve, the note left empty; meanwhile
    // someone denies it from a terminal and the app asks again, for a thousand times more.
    await approve.hover();
    await leashOn(target, ["deny", runId, "--as", "ops"]);
    await leashOn(target, ["resume", runId, "--agent", agentModule]);
    const now = await pendingOf(target, runId);
    assert.deepEqual(now.args, { amount: 10000 });

    const status = page.locator("[role=status]", { hasText: "This request changed since you opened it" });
    await status.waitFor();
    const section = page.locator("section[data-field=pending]");
    assert.equal(await section.getAttribute("data-digest"), shown.digest, "the request read stays on the page");
    assert.ok(await approve.isDisabled(), "its Approve button is disabled");
    assert.ok(await page.locator('form#answer button[value="deny"]').isDisabled());
    // The click the person had planned lands on a disabled button: nothing is sent.
    const box = await approve.boundingBox();
    assert.ok(box !== null);
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await status.locator("button").click();
    await page.locator(`section[data-field=pending][data-digest="${now.digest}"]`).waitFor();
    assert.ok(await sameDocument(page), "no form was submitted: the page is the one the person opened");
    assert.deepEqual(JSON.parse(await section.locator("pre[data-field=args]").innerText()), { amount: 10000 });
    assert.deepEqual((await target.store.load(runId))?.answers, [], "nothing was recorded for the new request");

    // Now that the person sees it, the new request is theirs to answer.
    const response = await submit(page, "deny");
    assert.equal(response.status(), 303);
    const answers = (await target.store.load(runId))?.answers ?? [];
    assert.equal(answers.at(-1)?.digest, now.digest);
    assert.equal(answers.at(-1)?.approver, "noor");
  },
);
