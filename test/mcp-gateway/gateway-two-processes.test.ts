import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { eventually } from "../mcp/support.js";
import { connectGateway, heldSetup, leash, readOrEmpty, runs, setup, textOf, waitingSignal } from "./support.js";

test("a second gateway started on the same store leaves the first one's live call alone: it runs once and answers its result", async () => {
  const at = await heldSetup({ approvalFor: [] });
  const { count, release } = at;
  const first = await connectGateway(at);
  let second: Awaited<ReturnType<typeof connectGateway>> | undefined;
  try {
    const call = first.client.callTool({ name: "held__hold", arguments: { n: 1 } }, undefined, { timeout: 150_000 });
    call.catch(() => undefined);
    await eventually(() => readOrEmpty(count).includes("hold 1"), "the upstream call to start", 60_000);
    second = await connectGateway(at);
    let said = "";
    second.transport.stderr?.on("data", (chunk: Buffer) => (said += chunk.toString()));
    // The second gateway has looked at the store once it answers a call (its recovery runs first).
    await second.client.listTools();
    await eventually(() => said.includes("recover"), "the second gateway to report its recovery", 60_000);
    assert.match(said, /left \d+ live run/);
    assert.equal((await runs(at))[0]?.status, "running");
    writeFileSync(release, "");
    const result = await call;
    assert.equal(textOf(result), "held 1");
    assert.notEqual((result as { isError?: boolean }).isError, true);
    assert.equal(readOrEmpty(count), "hold 1\n");
    const [run] = await runs(at);
    assert.equal(run?.status, "completed");
    const shown = JSON.parse((await leash(["show", run.runId, "--db", at.db, "--json"], at.dir)).stdout) as {
      state: { steps: { outcome: string }[] };
    };
    assert.equal(shown.state.steps[0]?.outcome, "executed");
  } finally {
    await second?.client.close();
    await first.client.close();
  }
});

test("one identical call made at once through two gateway processes on one store asks for one approval, and both clients get its result", async () => {
  const at = await setup({ waitMs: 120_000 });
  const [first, second] = await Promise.all([connectGateway(at), connectGateway(at)]);
  try {
    const target = path.join(at.files, "a.txt");
    const signals = [waitingSignal(), waitingSignal()];
    const calls = [first, second].map((gateway, index) =>
      gateway.client.callTool({ name: "fs__write_file", arguments: { path: target, content: "once" } }, undefined, {
        timeout: 150_000,
        onprogress: signals[index]!.onprogress,
      }),
    );
    for (const call of calls) call.catch(() => undefined);
    await Promise.all(signals.map((signal) => signal.waiting));
    // Both gateways settle on one run: the other, if one was started, is cancelled by its gateway.
    let waiting: { runId: string; status: string }[] = [];
    const end = Date.now() + 60_000;
    do waiting = (await runs(at)).filter((run) => run.status === "awaiting_approval");
    while (waiting.length !== 1 && Date.now() < end);
    assert.equal(waiting.length, 1);
    const approved = await leash(["approve", waiting[0]!.runId, "--as", "alice", "--db", at.db], at.dir);
    assert.equal(approved.status, 0, approved.stderr);
    const results = await Promise.all(calls);
    for (const result of results) assert.notEqual((result as { isError?: boolean }).isError, true, textOf(result));
    assert.equal(readFileSync(target, "utf8"), "once");
    const statuses = (await runs(at)).map((run) => run.status).sort();
    assert.equal(statuses.filter((status) => status === "completed").length, 1, statuses.join(", "));
    assert.ok(
      statuses.every((status) => status === "completed" || status === "stopped"),
      statuses.join(", "),
    );
  } finally {
    await Promise.all([first.client.close(), second.client.close()]);
  }
});
