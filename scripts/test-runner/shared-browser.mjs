// One headless Chromium for the whole test run: the browser test files connect to it
// (LEASH_TEST_BROWSER_ENDPOINT) instead of each starting a browser, and each test still has a
// fresh browser context (cookies, storage) of its own.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";

/** The Chromium the browser tests drive: CHROMIUM_PATH, else `chromium` on PATH; `undefined` when there is none. */
export function findChromium(environment = process.env) {
  const given = environment.CHROMIUM_PATH;
  if (given !== undefined && given !== "") return existsSync(given) ? given : undefined;
  return (environment.PATH ?? "")
    .split(delimiter)
    .filter((folder) => folder !== "")
    .map((folder) => join(folder, "chromium"))
    .find((path) => existsSync(path));
}

/**
 * Launches Chromium at `executablePath` as a server the tests connect to, and resolves with its
 * `endpoint` and `close()`.
 */
export async function launchSharedBrowser(root, executablePath) {
  const require = createRequire(join(root, "package.json"));
  // playwright-core is CommonJS: its exports are on `default` when node cannot list them statically.
  const playwright = await import(require.resolve("playwright-core"));
  const chromium = playwright.chromium ?? playwright.default.chromium;
  // The tests run as root in CI, where Chromium's sandbox cannot start.
  const server = await chromium.launchServer({ executablePath, args: ["--no-sandbox"], headless: true });
  return { endpoint: server.wsEndpoint(), close: () => server.close() };
}
