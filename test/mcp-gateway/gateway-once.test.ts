import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { test } from "node:test";
import { eventually } from "../mcp/support.js";
import { connectGateway, heldSetup, leash, readOrEmpty, runs, textOf, waitingSignal } from "./support.js";

/** A gateway in front of the held server, whose `hold` (a write) needs alice's approval. */
function heldUnderApproval(pollMs = 50): ReturnType<typeof heldSetup> {
  return heldSetup({ approvers: ["alice"] }, { approval: { waitMs: 120_000, pollMs } });
}

test("a gateway restarted on the host of a run's creator leaves the run another live gateway executes alone: it runs once", async () => {
  const at = await heldUnderApproval();
  const creator = await connectGateway(at);
  const executor = await connectGateway(at);
  let restarted: Awaited<ReturnType<typeof connectGateway>> | undefined;
  try {
    const created = waitingSignal();
    const first = creator.client.callTool({ name: "held__hold", arguments: { n: 1 } }, undefined, {
      timeout: 150_000,
      onprogress: created.onprogress,
    });
    first.catch(() => undefined);
    const runId = await created.waiting;
    // The identical call through another gateway waits on the same run.
    const joined = waitingSignal();
    const second = executor.client.callTool({ name: "held__hold", arguments: { n: 1 } }, undefined, {
      timeout: 150_000,
      onprogress: joined.onprogress,
    });
    second.catch(() => undefined);
    assert.equal(await joined.waiting, runId);
    process.kill(creator.transport.pid!, "SIGKILL");
    await assert.rejects(first);
    const approved = await leash(["approve", runId, "--as", "alice", "--db", at.db], at.dir);
    assert.equal(approved.status, 0, approved.stderr);
    // The second gateway resumed the run and is executing it now.
    await eventually(() => readOrEmpty(at.count) === "hold 1\n", "the upstream call to start", 60_000);
    restarted = await connectGateway(at);
    let said = "";
    restarted.transport.stderr?.on("data", (chunk: Buffer) => (said += chunk.toString()));
    await eventually(() => said.includes("recovery done"), "the restarted gateway's recovery", 60_000);
    assert.match(said, /0 run\(s\) cut by a stop recovered, left 1 live run/);
    writeFileSync(at.release, "");
    const result = await second;
    assert.equal(textOf(result), "held 1");
    assert.equal(readOrEmpty(at.count), "hold 1\n");
    const shown = JSON.parse((await leash(["show", runId, "--db", at.db, "--json"], at.dir)).stdout) as {
      state: { status: string; steps: { outcome: string; starts?: number }[] };
    };
    assert.equal(shown.state.status, "completed");
    assert.equal(shown.state.steps[0]?.outcome, "executed");
    assert.equal(shown.state.steps[0]?.starts, 1);
  } finally {
    await restarted?.client.close();
    await executor.client.close();
    await creator.client.close();
  }
});

test("identical calls on two gateways whose runs are both approved as soon as named run once, and both clients get the result", async () => {
  // Gateways that read the store every 2 s: both runs are approved before either looks again.
  const at = await heldUnderApproval(2_000);
  writeFileSync(at.release, "");
  const [one, two] = await Promise.all([connectGateway(at), connectGateway(at)]);
  try {
    for (const n of [1, 2, 3]) {
      const approved = new Set<string>();
      const approvals: Promise<unknown>[] = [];
      // The person approves every run a client is told of, at once, as two screens would show them.
      const onprogress = (progress: { message?: string }): void => {
        const runId = /leash approve (\S+)/.exec(progress.message ?? "")?.[1];
        if (runId === undefined || approved.has(runId)) return;
        approved.add(runId);
        approvals.push(leash(["approve", runId, "--as", "alice", "--db", at.db], at.dir));
      };
      const results = await Promise.all(
        [one, two].map((gateway) =>
          gateway.client.callTool({ name: "held__hold", arguments: { n } }, undefined, {
            timeout: 150_000,
            onprogress,
          }),
        ),
      );
      await Promise.all(approvals);
      for (const result of results) assert.equal(textOf(result), `held ${n}`);
      assert.equal(
        readOrEmpty(at.count)
          .split("\n")
          .filter((line) => line === `hold ${n}`).length,
        1,
        readOrEmpty(at.count),
      );
    }
    const statuses = (await runs(at)).map((run) => run.status);
    assert.equal(statuses.filter((status) => status === "completed").length, 3, statuses.join(", "));
  } finally {
    await Promise.all([one.client.close(), two.client.close()]);
  }
});
