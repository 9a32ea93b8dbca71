// The browser side of the inbox's end-to-end tests: Debian's chromium driven by playwright-core (no
// browser download), one browser per test run (or per file, for a file run alone) and a fresh context
// (cookies, storage) per test, the
// sign-in a person does, screenshots of the pages, and waits that poll with a deadline instead of
// sleeping.
import { after, before } from "node:test";
import type { TestContext } from "node:test";
import { existsSync, mkdirSync } from "node:fs";
import { delimiter, join } from "node:path";
import { chromium } from "playwright-core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { root } from "../cli/cli-helpers.js";
import { inCi } from "../postgres/database.js";
import { addApprover, PATIENCE_MS, skipEveryTest, startInbox, startPausedRun, stopAllChildren } from "./inbox-app.js";
import type { Inbox, InboxStore, RunText } from "./inbox-app.js";

export * from "./inbox-app.js";

/** The width of a desktop window and of a phone, in CSS pixels. */
export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 375, height: 812 };

/** Where the test run leaves its screenshots. */
export const SCREENSHOTS = join(root, "test-output", "inbox-screenshots");

/** The chromium to drive: CHROMIUM_PATH, else `chromium` on PATH; `undefined` when there is none. */
function chromiumPath(): string | undefined {
  const fromEnvironment = process.env.CHROMIUM_PATH;
  if (fromEnvironment !== undefined && fromEnvironment !== "")
    return existsSync(fromEnvironment) ? fromEnvironment : undefined;
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter((folder) => folder !== "")
    .map((folder) => join(folder, "chromium"))
    .find((path) => existsSync(path));
}

/** Why the browser tests cannot run here: no chromium. In CI that fails them; elsewhere they are skipped. */
const NO_CHROMIUM =
  "no Chromium for the inbox's browser tests: install Debian's chromium (`apt-get install -y chromium`), or set CHROMIUM_PATH";

/**
 * Gives the test file a headless chromium and returns a getter for it: the one browser of the test
 * run when scripts/test.mjs started one (LEASH_TEST_BROWSER_ENDPOINT), else one launched for this
 * file; disconnected or closed in the file's `after` hook, with every child the file started, even
 * when a test failed. Without chromium the file's tests are skipped, saying why, except in CI
 * (CI=true), where they fail.
 */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  const executablePath = chromiumPath();
  if (executablePath === undefined && !inCi()) {
    skipEveryTest(NO_CHROMIUM);
    console.warn(`\n*** SKIPPED: the browser tests of this file: ${NO_CHROMIUM}. ***\n`);
  }
  before(async () => {
    if (executablePath === undefined) {
      if (inCi()) throw new Error(`${NO_CHROMIUM}; .ci/run installs it.`);
      return;
    }
    const endpoint = process.env.LEASH_TEST_BROWSER_ENDPOINT;
    // We run as root in CI, where chromium's sandbox cannot start.
    browser =
      endpoint !== undefined && endpoint !== ""
        ? await chromium.connect(endpoint)
        : await chromium.launch({ executablePath, args: ["--no-sandbox"] });
  });
  after(async () => {
    await stopAllChildren();
    await browser?.close();
  });
  return () => {
    if (browser === undefined) throw new Error("The browser is not launched yet.");
    return browser;
  };
}

/** A page in a fresh context (closed after the test), desktop-sized unless told otherwise. */
export async function freshPage(t: TestContext, browser: Browser, viewport = DESKTOP): Promise<Page> {
  const phone = viewport.width < 600;
  const context: BrowserContext = await browser.newContext({
    viewport,
    deviceScaleFactor: phone ? 2 : 1,
    isMobile: phone,
    hasTouch: phone,
  });
  context.setDefaultTimeout(PATIENCE_MS);
  t.after(() => context.close());
  return context.newPage();
}

/**
 * The page of a run the app has just paused (`text`: its goal, reason and memo), open in a fresh page
 * of `browser` (desktop-sized unless told otherwise) with noor signed in to a new inbox on `target`.
 */
export async function pausedRunPage(
  t: TestContext,
  browser: Browser,
  target: InboxStore,
  text: RunText = {},
  viewport = DESKTOP,
): Promise<{ runId: string; inbox: Inbox; page: Page }> {
  const token = await addApprover(target, "noor");
  const runId = await startPausedRun(target, text);
  const inbox = await startInbox(t, target);
  const page = await freshPage(t, browser, viewport);
  await signIn(page, inbox.url, token);
  await page.goto(new URL(`runs/${runId}`, inbox.url).href);
  return { runId, inbox, page };
}

/** Clicks a button of the answer form, and resolves with the answer to that POST. */
export async function submit(page: Page, decision: "approve" | "deny") {
  const [response] = await Promise.all([
    page.waitForResponse((answer) => answer.request().method() === "POST" && answer.url().endsWith("/answer")),
    page.locator(`form#answer button[name="decision"][value="${decision}"]`).click(),
  ]);
  return response;
}

/** Signs in on the sign-in page as a person does, and waits for the list of runs. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(new URL("signin", url).href);
  await page.locator('input[name="token"]').fill(token);
  await Promise.all([
    page.waitForURL((address) => address.pathname === "/"),
    page.locator('button[type="submit"]').click(),
  ]);
}

/**
 * Waits until the page's script says its event stream is ready (`<main data-live="ready">`): the
 * server has looked at the store, so every change from then on reaches the page. A change made
 * before that could be the one the server's first look already saw, and no page would be told.
 */
export async function waitLive(page: Page): Promise<void> {
  await page.locator('main[data-live="ready"]').waitFor({ state: "attached" });
}

/**
 * Marks the document the page shows now; {@link sameDocument} later tells whether it is still the
 * one shown, i.e. whether what changed since came without a reload or a navigation.
 */
export async function markDocument(page: Page): Promise<void> {
  await page.evaluate('window.leashTestMark = "unchanged"');
}

/** Whether the page still shows the document {@link markDocument} marked. */
export async function sameDocument(page: Page): Promise<boolean> {
  return inPage<boolean>(page, 'window.leashTestMark === "unchanged"');
}

/**
 * The value of a JavaScript expression in the page (written as text: the tests are compiled without
 * the DOM's types, which only the page has).
 */
export function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate<T>(expression);
}

/**
 * Saves a screenshot as `inbox-NAME.png` under test-output/inbox-screenshots (`-postgres` added on
 * PostgreSQL), and, for SQLite, also to the folder LEASH_SCREENSHOTS_TO names (the guide's images).
 */
export async function screenshot(page: Page, name: string, kind: "sqlite" | "postgres"): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = `inbox-${name}${kind === "postgres" ? "-postgres" : ""}.png`;
  await page.screenshot({ path: join(SCREENSHOTS, file), fullPage: true });
  const copies = process.env.LEASH_SCREENSHOTS_TO;
  if (kind === "sqlite" && copies !== undefined && copies !== "") {
    const folder = join(root, copies);
    mkdirSync(folder, { recursive: true });
    await page.screenshot({ path: join(folder, file), fullPage: true });
  }
}

/**
 * Polls `probe` until it returns a value other than `undefined`, for up to {@link PATIENCE_MS}; fails
 * naming what was awaited. For state outside the browser (the store, a file); the browser's own waits
 * are playwright's locators.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Waited ${PATIENCE_MS} ms for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
