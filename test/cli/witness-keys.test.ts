// `leash witness` and the commands that take a witness's key, as a new user meets them: a key from
// `leash keygen` given where the witness's cosigner key is needed is refused with where the right key
// is printed, and what the witness prints is whole sentences.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { bin, errorLine, leash, requireBuiltBin, tempFolder } from "./cli-helpers.js";

/** `leash keygen --name NAME --out FILE --json`: the verifier key it prints. */
function keygen(cwd: string, name: string, file: string): string {
  const made = leash(["keygen", "--name", name, "--out", file, "--json"], { cwd });
  assert.equal(made.status, 0, made.stderr);
  return (JSON.parse(made.stdout) as { verifierKey: string }).verifierKey;
}

/** Starts `leash witness` and reads its start lines (up to the one about its state). */
async function witnessLines(cwd: string, args: string[]): Promise<{ lines: string[]; stop: () => Promise<void> }> {
  requireBuiltBin();
  const child = spawn(process.execPath, [bin, "witness", "--port", "0", ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  // A witness that never prints its last start line is stopped rather than waited on forever.
  const deadline = setTimeout(() => child.kill("SIGKILL"), 60_000);
  for await (const line of createInterface({ input: child.stdout })) {
    lines.push(line);
    if (line.startsWith("It keeps")) break;
  }
  clearTimeout(deadline);
  return {
    lines,
    stop: async () => {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

test("a keygen verifier key given for a witness's key is refused, naming where the witness prints its own", async (t) => {
  const folder = tempFolder();
  t.after(() => folder.remove());
  const cwd = folder.path;
  const logKey = keygen(cwd, "example.com/log", "log.key");
  const witnessKeygenKey = keygen(cwd, "witness.example/w1", "witness.key");
  const witness = await witnessLines(cwd, ["--key-file", "witness.key", "--log", `example.com/log=${logKey}`]);
  t.after(witness.stop);
  const cosignerKey = /^Verifier key: (\S+)$/.exec(witness.lines[1] ?? "")?.[1];
  assert.ok(cosignerKey !== undefined, witness.lines.join("\n"));
  assert.notEqual(cosignerKey, witnessKeygenKey);

  const attempts = [
    [
      "checkpoint",
      "trail.jsonl",
      "--key-file",
      "log.key",
      "--origin",
      "example.com/log",
      "--witness",
      `http://127.0.0.1:9=${witnessKeygenKey}`,
    ],
    [
      "checkpoint",
      "trail.jsonl",
      "--key-file",
      "log.key",
      "--origin",
      "example.com/log",
      "--witness",
      "http://127.0.0.1:9",
      "--witness-key",
      witnessKeygenKey,
    ],
    ["verify", "trail.jsonl", "--checkpoint", "app.note", "--key", logKey, "--witness-key", witnessKeygenKey],
  ];
  for (const args of attempts) {
    const refused = leash(args, { cwd });
    assert.equal(refused.status, 2, refused.stderr);
    const { code, message } = errorLine(refused);
    assert.equal(code, "invalid_key");
    assert.match(
      message,
      /was given a log's verifier key \(the kind `leash keygen` prints\), not a witness's cosigner verifier key/,
    );
    assert.match(
      message,
      /`leash witness` prints its cosigner verifier key when it starts, on the line "Verifier key: …"/,
    );
  }
  // The key the witness printed gets past the key check (and then on to the missing checkpoint file).
  const right = leash(
    ["verify", "trail.jsonl", "--checkpoint", "app.note", "--key", logKey, "--witness-key", cosignerKey],
    { cwd },
  );
  assert.notEqual(errorLine(right).code, "invalid_key");

  // The other way round: a witness's key given as a log's.
  const swapped = leash(
    ["witness", "--port", "0", "--key-file", "witness.key", "--log", `example.com/log=${cosignerKey}`],
    { cwd },
  );
  assert.equal(swapped.status, 2);
  assert.equal(errorLine(swapped).code, "invalid_key");
  assert.match(
    errorLine(swapped).message,
    /--log example\.com\/log=KEY was given a witness's cosigner verifier key, not a log's verifier key\. The log's verifier key is the one `leash keygen` printed/,
  );
});

test("leash witness says what it prints in whole sentences, and its refusals are whole sentences", async (t) => {
  const folder = tempFolder();
  t.after(() => folder.remove());
  const cwd = folder.path;
  const logKey = keygen(cwd, "example.com/log", "log.key");
  keygen(cwd, "witness.example/w1", "witness.key");
  for (const db of [undefined, join(cwd, "witness.db")]) {
    const witness = await witnessLines(cwd, [
      "--key-file",
      "witness.key",
      "--log",
      `example.com/log=${logKey}`,
      ...(db === undefined ? [] : ["--db", db]),
    ]);
    await witness.stop();
    const sentences = witness.lines.slice(2);
    assert.equal(sentences.length, 3, witness.lines.join("\n"));
    for (const line of sentences) assert.match(line, /^[A-Z].*\.$/, line);
    assert.ok(sentences.includes("It witnesses 1 log: example.com/log."), sentences.join("\n"));
    assert.match(sentences[0] ?? "", /cosigner verifier key.*not the key leash keygen printed/);
  }
  for (const args of [
    ["--port", "70000"],
    ["--port", "0"],
    ["--port", "0", "--log", "example.com/log"],
  ]) {
    const refused = leash(["witness", "--key-file", "witness.key", ...args], { cwd });
    assert.equal(refused.status, 2);
    assert.match(errorLine(refused).message, /^[A-Z].*\.$/, errorLine(refused).message);
  }
});

test("leash witness given a file that holds a verifier key, not a signer key, says which file to give", (t) => {
  const folder = tempFolder();
  t.after(() => folder.remove());
  const cwd = folder.path;
  const logKey = keygen(cwd, "example.com/log", "log.key");
  const printed = keygen(cwd, "witness.example/w1", "witness.key");
  writeFileSync(join(cwd, "witness.pub"), `${printed}\n`);
  const refused = leash(["witness", "--port", "0", "--key-file", "witness.pub", "--log", `example.com/log=${logKey}`], {
    cwd,
  });
  assert.equal(refused.status, 2);
  assert.match(
    errorLine(refused).message,
    /^The key file witness\.pub holds no signer key \(a signer key starts with PRIVATE\+KEY\+\)\. Give --key-file the file `leash keygen --out FILE` wrote/,
  );
});
