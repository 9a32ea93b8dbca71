import assert from "node:assert/strict";
import { errorLine, leash } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";
import { payAgent } from "./pay-agent.js";
import { FIRST_CALL, SECOND_CALL, saveGateSession } from "../helpers/gate-session-state.js";

const ESCAPED_SECOND_CALL = "call_b\\u001b[2K";

eachStore(
  "leash runs --status awaiting_approval lists a gate session with requests waiting, naming each request",
  async (_t, target) => {
    const { waiting } = await saveGateSession(target.store, "gate-1");
    const paused = await payAgent(target.store).run("pay one bill");
    await payAgent(target.store)
      .run("pay nothing", { runId: "other" })
      .catch(() => undefined);

    const json = leash(["runs", "--status", "awaiting_approval", "--json", ...target.args], { cwd: target.cwd });
    assert.equal(json.status, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as {
      runs: {
        runId: string;
        status: string;
        gate: boolean;
        waiting: number;
        requests?: { step: number; callId: string; digest: string }[];
      }[];
    };
    const gate = listed.runs.find((run) => run.runId === "gate-1");
    assert.ok(gate !== undefined, json.stdout);
    assert.equal(gate.status, "running");
    assert.equal(gate.gate, true);
    assert.equal(gate.waiting, 2);
    assert.deepEqual(
      gate.requests?.map((request) => [request.step, request.callId, request.digest]),
      waiting.map((request, index) => [request.step, index === 0 ? FIRST_CALL : "call_b\u001b[2K", request.digest]),
    );
    const plain = listed.runs.find((run) => run.runId === paused.runId);
    assert.deepEqual([plain?.gate, plain?.waiting, plain?.requests], [false, 1, undefined]);

    const text = leash(["runs", "--status", "awaiting_approval", ...target.args], { cwd: target.cwd });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /gate-1\s+running \(gate, 2 waiting\)/);
    assert.ok(text.stdout.includes(`step 0 call "${FIRST_CALL}": pay {"amount":10}`), text.stdout);
    assert.ok(text.stdout.includes(`step 1 call "${ESCAPED_SECOND_CALL}": pay {"amount":25}`), text.stdout);
    assert.ok(!text.stdout.includes("\u001b"), "no escape sequence reaches the terminal");
    assert.ok(text.stdout.includes(`--call "${FIRST_CALL}" --digest ${waiting[0]!.digest.slice(0, 16)}`), text.stdout);

    const running = leash(["runs", "--status", "running", "--json", ...target.args], { cwd: target.cwd });
    assert.deepEqual(
      (JSON.parse(running.stdout) as { runs: { runId: string }[] }).runs.map((run) => run.runId),
      ["gate-1"],
    );
  },
);

eachStore(
  "leash show marks a gate session and prints every waiting request with its call id and digest",
  async (_t, target) => {
    const { waiting } = await saveGateSession(target.store, "gate-show");
    const shown = leash(["show", "gate-show", ...target.args], { cwd: target.cwd });
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stdout, /a gate's session: driven by the app's framework loop/);
    assert.match(shown.stdout, /Waiting for a person: 2 requests, oldest first, recorded by the app's framework loop/);
    assert.ok(shown.stdout.includes(`step 0 (call "${FIRST_CALL}") asks to run pay`), shown.stdout);
    assert.ok(shown.stdout.includes(`step 1 (call "${ESCAPED_SECOND_CALL}") asks to run pay`), shown.stdout);
    for (const request of waiting) assert.ok(shown.stdout.includes(`digest: ${request.digest}`), shown.stdout);
    assert.ok(!shown.stdout.includes("\u001b"));
  },
);

eachStore(
  "leash approve without a selector, with several requests waiting, is refused naming each and records nothing",
  async (_t, target) => {
    const { state } = await saveGateSession(target.store, "gate-pick");
    const refused = leash(["approve", "gate-pick", "--as", "noor", ...target.args], { cwd: target.cwd });
    assert.notEqual(refused.status, 0);
    const { code, message } = errorLine(refused);
    assert.equal(code, "invalid_option");
    assert.ok(
      message.includes(`step 0, call "${FIRST_CALL}", tool pay (pick it with --call "${FIRST_CALL}")`),
      message,
    );
    assert.ok(message.includes(`step 1, call "${ESCAPED_SECOND_CALL}", tool pay`), message);

    const wrong = leash(["deny", "gate-pick", "--as", "noor", "--step", "7", ...target.args], { cwd: target.cwd });
    assert.equal(errorLine(wrong).code, "invalid_option");
    assert.match(errorLine(wrong).message, /No request of run gate-pick waiting for a person is at step 7/);

    const otherDigest = leash(["deny", "gate-pick", "--as", "noor", "--digest", "c".repeat(16), ...target.args], {
      cwd: target.cwd,
    });
    assert.equal(errorLine(otherDigest).code, "stale_state");

    const mismatched = leash(
      ["approve", "gate-pick", "--as", "noor", "--step", "1", "--call", FIRST_CALL, ...target.args],
      { cwd: target.cwd },
    );
    assert.equal(errorLine(mismatched).code, "invalid_option");

    const after = await target.store.load("gate-pick");
    assert.deepEqual([after?.revision, after?.answers.length], [state.revision, 0]);
  },
);

eachStore(
  "leash approve --step picks the request of a paused run as it is, and refuses a step it does not wait on",
  async (_t, target) => {
    const paused = await payAgent(target.store).run("pay one bill");
    const wrong = leash(["approve", paused.runId, "--as", "noor", "--step", "3", ...target.args], { cwd: target.cwd });
    assert.equal(errorLine(wrong).code, "invalid_option");
    const done = leash(["approve", paused.runId, "--as", "noor", "--step", "0", "--json", ...target.args], {
      cwd: target.cwd,
    });
    assert.equal(done.status, 0, done.stderr);
    const answered = JSON.parse(done.stdout) as { request: { step: number; digest: string } };
    assert.equal(answered.request.digest, paused.pending?.digest);
    assert.equal((await target.store.load(paused.runId))?.answers.length, 1);
  },
);

eachStore(
  "leash approve --call answers one waiting call of a gate session, which then runs once, and the other still waits",
  async (_t, target) => {
    const { session, paid, waiting } = await saveGateSession(target.store, "gate-answer");
    const done = leash(["approve", "gate-answer", "--as", "noor", "--call", SECOND_CALL, "--json", ...target.args], {
      cwd: target.cwd,
    });
    assert.equal(done.status, 0, done.stderr);
    const answered = JSON.parse(done.stdout) as { request: { digest: string }; callId: string; gate: boolean };
    assert.deepEqual(
      [answered.request.digest, answered.callId, answered.gate],
      [waiting[1]!.digest, SECOND_CALL, true],
    );
    const ran = await session.call(SECOND_CALL, "pay", { amount: 25 });
    assert.equal(ran.status, "executed");
    assert.deepEqual(paid, [25]);
    const still = await session.call(FIRST_CALL, "pay", { amount: 10 });
    assert.equal(still.status, "awaiting_approval");

    const text = leash(["deny", "gate-answer", "--as", "noor", ...target.args], { cwd: target.cwd });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /Denied step 0 \(call "call_a"\) of run gate-answer: pay/);
    assert.match(text.stdout, /this is a gate's session, driven by the app's framework loop/);
  },
);
