import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { bin, errorLine, leash } from "../cli/cli-helpers.js";
import { post, startWitnessProcess, stopWitness, TestLog, witnessFolder } from "./witness-support.js";

test("leash witness refuses to start without a log, with a --log not ORIGIN=KEY, a missing key file or a busy port", async (t) => {
  const folder = witnessFolder();
  t.after(folder.remove);
  const log = new TestLog().grow(1);
  const logArgs = ["--log", `${log.origin}=${log.keys.verifierKey}`];
  const cases: [string[], string][] = [
    [["--key-file", folder.keyFile], "invalid_option"],
    [["--key-file", folder.keyFile, "--log", "example.com/leash"], "invalid_option"],
    [["--key-file", folder.keyFile, "--log", `${log.origin}=${log.keys.verifierKey}x`], "invalid_key"],
    [["--key-file", join(folder.dir, "absent.key"), ...logArgs], "key_not_found"],
    [["--key-file", folder.keyFile, "--port", "70000", ...logArgs], "invalid_option"],
  ];
  for (const [args, code] of cases) {
    const result = leash(["witness", "--port", "0", ...args], { cwd: folder.dir });
    assert.equal(result.status, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.equal(errorLine(result).code, code, args.join(" "));
  }
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
  t.after(() => busy.close());
  const { port } = busy.address() as { port: number };
  const taken = leash(["witness", "--port", String(port), "--key-file", folder.keyFile, ...logArgs], {
    cwd: folder.dir,
  });
  assert.equal(taken.status, 3, taken.stderr);
  assert.equal(errorLine(taken).code, "listen_failed");
  assert.match(
    errorLine(taken).message,
    /^Could not listen on 127\.0\.0\.1:\d+: another process listens there already; .*\.$/,
  );
});

test("leash witness --config names logs beside --log, and --json prints its start as one JSON line", async (t) => {
  const folder = witnessFolder();
  t.after(folder.remove);
  const one = new TestLog("example.com/one");
  const two = new TestLog("example.com/two");
  const config = join(folder.dir, "witness.json");
  writeFileSync(config, JSON.stringify({ logs: { [one.origin]: [one.keys.verifierKey] } }));
  const args = ["--key-file", folder.keyFile, "--config", config, "--log", `${two.origin}=${two.keys.verifierKey}`];
  const witness = await startWitnessProcess(args);
  t.after(() => stopWitness(witness).then(() => undefined));
  assert.equal((await post(witness.url, one.grow(2).body(0))).status, 200);
  assert.equal((await post(witness.url, two.grow(3).body(0))).status, 200);

  const db = join(folder.dir, "w.db");
  const child = spawn(process.execPath, [bin, "witness", "--port", "0", "--db", db, "--json", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
  const start = JSON.parse(line) as { url: string; verifierKey: string; logs: string[]; db: string };
  assert.deepEqual(start.logs, [one.origin, two.origin]);
  assert.equal(start.db, db);
  assert.equal(start.verifierKey, witness.verifierKey);
  assert.equal((await post(start.url, one.body(0))).status, 200);
  child.kill("SIGTERM");
  assert.equal(await exited, 0);
});
