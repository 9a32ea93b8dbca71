// The closing line of a test run: what it skipped, why, and the command that installs what was
// missing. Skips are grouped by what they needed: PostgreSQL, a browser (Chromium), or anything else.
import { INSTALL_POSTGRES } from "./throwaway-postgres.mjs";

/** The command that installs the browser the inbox's browser tests drive, on Debian. */
export const INSTALL_CHROMIUM = "apt-get install -y chromium";

/**
 * The line, from the skipped tests (`[{ file, name, reason }]`), what became of PostgreSQL
 * (`postgres`: `{ state: "given" | "started" | "missing" | "failed" | "unneeded" }`) and whether the
 * run had a browser for the files that need one (`browser`: `{ needed, found }`).
 */
export function skipLine(skipped, postgres, browser) {
  const groups = { postgres: [], browser: [], other: [] };
  for (const skip of skipped) {
    if (/DATABASE_URL|postgres/i.test(skip.reason)) groups.postgres.push(skip);
    else if (/chromium|browser/i.test(skip.reason)) groups.browser.push(skip);
    else groups.other.push(skip);
  }
  const parts = [];
  if (postgres.state === "missing") {
    parts.push(
      `the PostgreSQL tests (${counted(groups.postgres)}no PostgreSQL server binaries; install them with \`${INSTALL_POSTGRES}\`)`,
    );
  } else if (postgres.state === "failed") {
    parts.push(
      `the PostgreSQL tests (${counted(groups.postgres)}the throwaway PostgreSQL did not start, as said above)`,
    );
  } else if (groups.postgres.length > 0) {
    parts.push(`${count(groups.postgres)} needing PostgreSQL (${reasons(groups.postgres)})`);
  }
  if (browser.needed && !browser.found) {
    parts.push(`the browser tests (${counted(groups.browser)}no Chromium; install it with \`${INSTALL_CHROMIUM}\`)`);
  } else if (groups.browser.length > 0) {
    parts.push(`${count(groups.browser)} needing a browser (${reasons(groups.browser)})`);
  }
  if (groups.other.length > 0) parts.push(`${count(groups.other, "other ")} (${reasons(groups.other)})`);
  return parts.length === 0 ? "Skipped: nothing." : `Skipped: ${parts.join("; ")}.`;
}

/** "N tests in M files: ", or nothing when none was counted (a file may leave such tests undefined). */
function counted(skips) {
  return skips.length === 0 ? "" : `${count(skips)}: `;
}

function count(skips, kind = "") {
  const files = new Set(skips.map((skip) => skip.file)).size;
  const tests = `${skips.length} ${kind}${skips.length === 1 ? "test" : "tests"}`;
  return files > 1 ? `${tests} in ${files} files` : tests;
}

/** The distinct reasons given, each once, the first few in full. */
function reasons(skips) {
  const distinct = [...new Set(skips.map((skip) => skip.reason.replace(/\s+/g, " ").trim() || "no reason given"))];
  const shown = distinct.slice(0, 3).map((reason) => (reason.length > 120 ? `${reason.slice(0, 117)}...` : reason));
  return distinct.length > 3 ? `${shown.join(" / ")} / ${distinct.length - 3} other reasons` : shown.join(" / ");
}
