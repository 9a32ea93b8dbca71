// A person's inbox, end to end in a real browser, as inbox.test.ts: the run page on a phone, an
// approver the agent's policy refuses, and the list of work that gave up.
import assert from "node:assert/strict";
import { agentModule, eachStore, freshPage, inPage, pausedRunPage, PHONE, pendingOf, screenshot } from "./support.js";
import {
  addApprover,
  signIn,
  startInbox,
  startPausedRun,
  startWorkThatGivesUp,
  submit,
  useBrowser,
} from "./support.js";

const browser = useBrowser();

eachStore(
  "the run page is usable on a phone: the approve button shows without sideways scrolling",
  async (t, target) => {
    const { page } = await pausedRunPage(
      t,
      browser(),
      target,
      {
        goal: "Pay invoice INV-2044 from Acme Tools",
        memo: "INV-2044 (March): 3 torque wrenches",
        reason: "The invoice matches purchase order PO-88 and is due on Friday.",
      },
      PHONE,
    );
    const approve = page.locator('form#answer button[name="decision"][value="approve"]');
    await approve.scrollIntoViewIfNeeded();
    assert.ok(await approve.isVisible());
    const box = await approve.boundingBox();
    assert.ok(
      box !== null && box.x >= 0 && box.x + box.width <= PHONE.width,
      `the button lies inside the screen: ${JSON.stringify(box)}`,
    );
    const width = await inPage<number>(page, "document.documentElement.scrollWidth");
    assert.ok(width <= PHONE.width, `the page is ${width} px wide on a ${PHONE.width} px screen`);
    await page.evaluate("window.scrollTo(0, 0)");
    await screenshot(page, "run-phone", target.kind);
  },
);

eachStore("on a phone the arguments show in full, wrapped, without scrolling inside their box", async (t, target) => {
  const { page } = await pausedRunPage(
    t,
    browser(),
    target,
    { memo: "INV-2044 (March): 3 torque wrenches, 2 socket sets" },
    PHONE,
  );
  const [shown, whole] = await Promise.all([
    inPage<number>(page, 'document.querySelector("pre[data-field=args]").clientWidth'),
    inPage<number>(page, 'document.querySelector("pre[data-field=args]").scrollWidth'),
  ]);
  assert.ok(
    whole <= shown,
    `the arguments show in full, without scrolling inside their box (${whole} px in ${shown} px)`,
  );
});

eachStore("an approver the agent's policy refuses is turned away, and nothing is recorded", async (t, target) => {
  const samToken = await addApprover(target, "sam");
  const noorToken = await addApprover(target, "noor");
  const runId = await startPausedRun(target, { goal: "Pay invoice INV-2046" });
  const { digest } = await pendingOf(target, runId);
  const inbox = await startInbox(t, { ...target, env: { ...target.env, LEASH_TEST_APPROVERS: "noor" } }, [
    "--agent",
    agentModule,
  ]);
  const sam = await freshPage(t, browser());
  await signIn(sam, inbox.url, samToken);
  await sam.goto(new URL(`runs/${runId}`, inbox.url).href);
  const refused = await submit(sam, "approve");
  assert.equal(refused.status(), 403);
  await sam.locator("[role=alert]").waitFor();
  assert.deepEqual((await target.store.load(runId))?.answers, [], "nothing was recorded");

  const noor = await freshPage(t, browser());
  await signIn(noor, inbox.url, noorToken);
  await noor.goto(new URL(`runs/${runId}`, inbox.url).href);
  assert.equal((await submit(noor, "approve")).status(), 303);
  const state = await target.store.load(runId);
  assert.deepEqual(
    state?.answers.map(({ digest, granted, approver }) => ({ digest, granted, approver })),
    [{ digest, granted: true, approver: "noor" }],
  );
});

eachStore("the list of work that gave up shows its attempts and its problem", async (t, target) => {
  const token = await addApprover(target, "noor");
  const runId = await startWorkThatGivesUp(target);
  await startPausedRun(target, { goal: "Pay invoice INV-2045" });
  const inbox = await startInbox(t, target);
  const page = await freshPage(t, browser());
  await signIn(page, inbox.url, token);
  await page.goto(new URL("gave-up", inbox.url).href);
  const row = page.locator(`tr[data-run-id="${runId}"]`);
  const text = await row.innerText();
  assert.match(text, /\b2\b/, "two attempts");
  assert.match(text, /answer_rejected/);
  assert.equal(await page.locator("tr[data-run-id]").count(), 1, "only the work that gave up");
  await screenshot(page, "gave-up", target.kind);
});
