import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { connectGateway, heldSetup, leash, readOrEmpty, setup, textOf } from "./support.js";

interface Waiting {
  status: string;
  runId: string;
  digest: string;
  inbox: string | null;
  notCounted?: { approver: string; via: string | null; why: string }[];
}

test("a waiting call answers with its status as data (structuredContent and _meta), and a run id that \\w+ and a double-click take whole", async () => {
  const at = await heldSetup({ approvers: ["alice"] }, { approval: { waitMs: 300, pollMs: 50 } });
  const { client } = await connectGateway(at);
  try {
    const result = await client.callTool({ name: "held__hold", arguments: { n: 1 } });
    assert.equal(result.isError, true);
    const data = result.structuredContent as Waiting;
    assert.equal(data.status, "awaiting_approval");
    assert.match(data.runId, /^\w+$/);
    assert.match(data.digest, /^[0-9a-f]{64}$/);
    assert.equal(data.inbox, null);
    assert.deepEqual(result._meta, result.structuredContent);
    // The prose names the same run, and a \w+ pattern after "run " takes it whole.
    const text = textOf(result);
    assert.equal(/run (\w+)/.exec(text)?.[1], data.runId);
    assert.equal(/leash approve (\w+)/.exec(text)?.[1], data.runId);
    assert.match(text, new RegExp(`--digest ${data.digest.slice(0, 16)}`));
    // A repeated call finds the same waiting run.
    const again = await client.callTool({ name: "held__hold", arguments: { n: 1 } });
    assert.equal((again.structuredContent as Waiting).runId, data.runId);
    assert.equal(readOrEmpty(at.count), "");
  } finally {
    await client.close();
  }
});

test("with approval.inbox, a waiting call's answer names the run's page in the inbox", async () => {
  const at = await heldSetup(
    { approvers: ["alice"] },
    { approval: { waitMs: 300, pollMs: 50, inbox: "http://127.0.0.1:8377/leash" } },
  );
  const { client } = await connectGateway(at);
  try {
    const result = await client.callTool({ name: "held__hold", arguments: { n: 2 } });
    const data = result.structuredContent as Waiting;
    assert.equal(data.inbox, `http://127.0.0.1:8377/leash/runs/${data.runId}`);
    assert.match(textOf(result), new RegExp(`in the inbox at http://127\\.0\\.0\\.1:8377/leash/runs/${data.runId}`));
  } finally {
    await client.close();
  }
});

test("a tool with an outputSchema gets the waiting status in _meta only, and the SDK client accepts the answer", async () => {
  const at = await setup({ waitMs: 300 });
  const { client } = await connectGateway(at);
  try {
    await client.listTools();
    const result = await client.callTool({
      name: "fs__write_file",
      arguments: { path: path.join(at.files, "x.txt"), content: "x" },
    });
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent, undefined);
    const meta = result._meta as unknown as Waiting;
    assert.equal(meta.status, "awaiting_approval");
    assert.match(meta.runId, /^\w+$/);
  } finally {
    await client.close();
  }
});

test("an answer by someone the gateway's config does not allow is said so by `leash approve` (and --json), and by the next reply to the call", async () => {
  const at = await heldSetup({ approvers: ["alice"] }, { approval: { waitMs: 300, pollMs: 50 } });
  const { client } = await connectGateway(at);
  try {
    const first = await client.callTool({ name: "held__hold", arguments: { n: 3 } });
    const { runId } = first.structuredContent as Waiting;
    const approved = await leash(["approve", runId, "--as", "mallory", "--db", at.db], at.dir);
    assert.equal(approved.status, 0, approved.stderr);
    assert.match(
      approved.stdout,
      /recorded but will not count: the gateway's config \(policy\.approvers\) lets only "alice" approve/,
    );
    assert.doesNotMatch(approved.stdout, /Next: the gateway runs it/);
    const json = await leash(["deny", runId, "--as", "eve", "--db", at.db, "--json"], at.dir);
    const said = JSON.parse(json.stdout) as { counts: boolean; notCounted?: string };
    assert.equal(said.counts, false);
    assert.match(said.notCounted ?? "", /policy\.approvers/);
    const again = await client.callTool({ name: "held__hold", arguments: { n: 3 } });
    const data = again.structuredContent as Waiting;
    assert.equal(data.runId, runId);
    assert.deepEqual(
      data.notCounted?.map((item) => [item.approver, item.via]),
      [
        ["mallory", "cli"],
        ["eve", "cli"],
      ],
    );
    assert.match(textOf(again), /An answer by "mallory" \(via cli\) was recorded but does not count/);
    assert.equal(readOrEmpty(at.count), "");
    // An allowed approver's answer counts and says so: the call runs once.
    const allowed = await leash(["approve", runId, "--as", "alice", "--db", at.db, "--json"], at.dir);
    assert.equal((JSON.parse(allowed.stdout) as { counts: boolean }).counts, true);
    writeFileSync(at.release, "");
    const ran = await client.callTool({ name: "held__hold", arguments: { n: 3 } });
    assert.equal(ran.isError, undefined, textOf(ran));
    assert.equal(readOrEmpty(at.count), "hold 3\n");
  } finally {
    await client.close();
  }
});
