import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { bin, errorLine, leash, requireBuiltBin } from "../cli/cli-helpers.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, serve } from "./serve-helpers.js";

/** Starts `leash serve` with `args`, waits for its first line of stdout and the stderr it wrote, and stops it. */
async function firstLines(
  args: string[],
  cwd: string,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  requireBuiltBin();
  const child = spawn(process.execPath, [bin, "serve", ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no output in 60 s: ${stderr}`)), 60_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.includes("\n")) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  // The warning is written right after the URL line; ask the server to stop, then read all stderr.
  child.kill("SIGTERM");
  const code = await exited;
  return { stdout, stderr, code };
}

eachStore("with --json the first line is {url}; a --host that is not loopback warns on stderr", async (_t, target) => {
  await addApprover(target, "noor");
  const json = await firstLines(["--port", "0", "--json", ...target.args], target.cwd);
  assert.equal(json.code, 0, json.stderr);
  const { url } = JSON.parse(json.stdout.split("\n")[0] as string) as { url: string };
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  assert.equal(json.stderr, "", "loopback: no warning");

  const wide = await firstLines(["--port", "0", "--host", "0.0.0.0", ...target.args], target.cwd);
  assert.equal(wide.code, 0, wide.stderr);
  assert.match(wide.stdout, /^leash inbox: http:\/\/0\.0\.0\.0:\d+\/\n/);
  assert.match(wide.stderr, /warning: the inbox listens on 0\.0\.0\.0, not loopback/);
});

eachStore("serve on a store with no approvers says how to add one, in text and in --json", async (_t, target) => {
  await target.store.list();
  const text = await firstLines(["--port", "0", ...target.args], target.cwd);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^leash inbox: http:\/\/127\.0\.0\.1:\d+\/\n/);
  const line = text.stderr.trim();
  assert.match(
    line,
    /^leash: No one can sign in yet: .* has no approvers\. Add one with `leash approvers add NAME --db /,
  );
  assert.match(line, /which prints their sign-in token once\.$/);

  // The command it names works as printed, on this very store, and then the warning is gone.
  const named = /`leash (approvers add NAME [^`]+)`/.exec(line)?.[1] ?? "";
  const args = named.replace("NAME", "noor").split(" ");
  assert.deepEqual(
    args.slice(3),
    target.args.map((arg) => arg.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:***@")),
  );
  const json = await firstLines(["--port", "0", "--json", ...target.args], target.cwd);
  const warning = JSON.parse(json.stderr.trim()) as { warning: string; message: string };
  assert.equal(warning.warning, "no_approvers");
  assert.match(warning.message, /leash approvers add NAME/);
  await addApprover(target, "noor");
  const after = await firstLines(["--port", "0", ...target.args], target.cwd);
  assert.equal(after.stderr, "");
});

test("serve refuses a port that is no port, and a store that does not exist, before it listens", () => {
  const badPort = leash(["serve", "--port", "http", "--db", "nowhere.db"], { cwd: process.cwd() });
  assert.equal(badPort.status, 2);
  assert.equal(errorLine(badPort).code, "invalid_option");
  const missing = leash(["serve", "--port", "0", "--db", "/nonexistent/leash.db"], { cwd: process.cwd() });
  assert.equal(missing.status, 2);
  assert.equal(errorLine(missing).code, "db_not_found");
});

eachStore("serve on a port that is taken exits 3 with listen_failed", async (t, target) => {
  await target.store.list();
  const first = await serve(t, target);
  const port = new URL(first.url).port;
  const second = leash(["serve", "--port", port, ...target.args], { cwd: target.cwd });
  assert.equal(second.status, 3, second.stderr);
  assert.equal(errorLine(second).code, "listen_failed");
});
