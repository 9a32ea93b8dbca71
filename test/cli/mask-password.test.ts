// A PostgreSQL password never reaches the screen: not in `--json`'s "db", nor verify's text, nor an error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { leash, tempFolder } from "./cli-helpers.js";
import { openCliStore, storeKinds } from "./cli-stores.js";
import { payAgent } from "./pay-agent.js";

const SECRET = "s3cretPw";

/** The test's URL with a password in its query string, in two cases. */
function withQueryPassword(args: string[]): string[] {
  const at = args.indexOf("--db");
  const url = new URL(args[at + 1] as string);
  url.searchParams.set("PassWord", SECRET);
  url.searchParams.set("password", SECRET);
  const copy = [...args];
  copy[at + 1] = url.toString();
  return copy;
}

test(
  "a password in a PostgreSQL URL's query string is masked in runs --json, verify and show",
  {
    skip: !storeKinds().includes("postgres"),
  },
  async (t) => {
    const target = openCliStore(t, "postgres");
    const paused = await payAgent(target.store).run("pay the invoice");
    const args = withQueryPassword(target.args);
    for (const command of [
      ["runs", "--json"],
      ["runs"],
      ["verify"],
      ["verify", "--json"],
      ["show", paused.runId],
      ["show", "nope"],
    ]) {
      const result = leash([...command, ...args], { cwd: target.cwd });
      assert.ok(result.status === 0 || result.status === 2, `${command.join(" ")}: ${result.stderr}`);
      const output = result.stdout + result.stderr;
      assert.ok(!output.includes(SECRET), `${command.join(" ")} prints the password:\n${output}`);
    }
    const runs = leash(["runs", "--json", ...args], { cwd: target.cwd });
    assert.match((JSON.parse(runs.stdout) as { db: string }).db, /password=\*\*\*/i);
  },
);

test("a password is masked in the error of an unreachable PostgreSQL database, in text and JSON", async () => {
  const folder = tempFolder();
  try {
    const url = `postgres://app:${SECRET}@127.0.0.1:1/leash?connect_timeout=2&password=${SECRET}`;
    for (const json of [[], ["--json"]]) {
      const result = leash(["runs", "--db", url, ...json], { cwd: folder.path });
      assert.notEqual(result.status, 0);
      assert.ok(!(result.stdout + result.stderr).includes(SECRET), result.stderr);
      assert.ok(result.stderr.includes("***"), result.stderr);
    }
  } finally {
    folder.remove();
  }
});
