// A log never signs a fork of a checkpoint it signed (C2SP tlog-checkpoint): an intruder who can write
// the store, but holds no key, rewrites a record, re-digests its run and throws the stored tree away so
// that it is rebuilt from the rewritten records; the key holder's next checkpoint, by the bin or by an
// agent's automatic checkpoints, must refuse rather than sign the rewritten history.
import assert from "node:assert/strict";
import { Agent, Decision, keygen, tool } from "../../src/index.js";
import { evidenceLogOf } from "../../src/evidence/index.js";
import type { AuditSink, RunStore } from "../../src/index.js";
import type { EvidenceLogOwner } from "../../src/evidence/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { eachStore, type CliStore } from "./cli-stores.js";
import { errorLine, leash } from "./cli-helpers.js";
import { makeKeys, runInto } from "./evidence-helpers.js";
import { dropStoredTree, rebuildStoredRun } from "./evidence-store-tamper.js";

async function launder(target: CliStore, run: string): Promise<void> {
  await rebuildStoredRun(target, run, 1, (record) => ({ ...record, at: "2000-01-01T00:00:00.000Z" }));
  await dropStoredTree(target);
}

function checkpointArgs(target: CliStore, keyFile: string): string[] {
  return ["checkpoint", ...target.args, "--key-file", keyFile, "--origin", "example.com/leash", "--json"];
}

eachStore(
  "checkpoint refuses a store whose records no longer give its last checkpoint's root, even with its tree rebuilt, naming that checkpoint's size",
  async (_t, target) => {
    const runs = await runInto(target.store, [1, 2, 3]);
    const { keyFile } = makeKeys(target.cwd);
    const first = leash(checkpointArgs(target, keyFile), { cwd: target.cwd });
    assert.equal(first.status, 0, first.stderr);
    const { treeSize, note } = JSON.parse(first.stdout) as { treeSize: number; note: string };
    await launder(target, runs[1]!);
    const second = leash(checkpointArgs(target, keyFile).slice(0, -1), { cwd: target.cwd });
    assert.notEqual(second.status, 0, second.stdout);
    const { code, message } = errorLine(second);
    assert.equal(code, "audit_invalid");
    assert.match(message, new RegExp(`checkpoint of ${treeSize} records`));
    const kept = await evidenceLogOf(target.store as unknown as EvidenceLogOwner).checkpoints();
    assert.deepEqual(
      kept.map((checkpoint) => checkpoint.note),
      [note],
    );
  },
);

/** The same store opened anew, as another process would: its log has checked nothing yet. */
function reopened(target: CliStore): RunStore & AuditSink {
  return target.kind === "sqlite"
    ? new SqliteStore(target.args[1]!)
    : new PostgresStore({ connectionString: target.args[1]!, schema: target.args[3]! });
}

eachStore(
  "an agent's first automatic checkpoint in a new process rebuilds the tree from the records and refuses a log rewritten since the kept checkpoint",
  async (_t, target) => {
    const runs = await runInto(target.store, [1, 2]);
    const { signerKey } = keygen("example.com/leash");
    const kept = await evidenceLogOf(target.store as unknown as EvidenceLogOwner).checkpoint({
      key: signerKey,
      origin: "example.com/leash",
    });
    await launder(target, runs[0]!);
    const store = reopened(target);
    try {
      const failed: string[] = [];
      const agent = new Agent({
        tools: [],
        planner: () => Decision.finish("done"),
        store,
        checkpoint: { key: signerKey, origin: "example.com/leash" },
      });
      agent.on("checkpoint_failed", (event) => failed.push(`${event.code}: ${event.message}`));
      await agent.run("three");
      assert.equal(failed.length, 1);
      assert.match(failed[0]!, new RegExp(`^audit_invalid: .*checkpoint of ${kept.treeSize} records`));
      const log = evidenceLogOf(store as unknown as EvidenceLogOwner);
      assert.deepEqual(
        (await log.checkpoints()).map(({ note }) => note),
        [kept.note],
      );
    } finally {
      await (store as unknown as { close(): Promise<void> }).close();
    }
  },
);

eachStore(
  "an agent's automatic checkpoint refuses (checkpoint_failed, audit_invalid) to sign a log rewritten and rebuilt since the checkpoint it signed",
  async (_t, target) => {
    const { signerKey } = keygen("example.com/leash");
    const echo = tool({
      name: "echo",
      parameters: { type: "object", properties: {}, additionalProperties: false },
      execute: () => "",
    });
    const failed: string[] = [];
    const agent = new Agent({
      tools: [echo],
      planner: (state) => (state.steps.length < 2 ? Decision.act("echo", {}) : Decision.finish("done")),
      store: target.store,
      checkpoint: { key: signerKey, origin: "example.com/leash" },
    });
    agent.on("checkpoint_failed", (event) => failed.push(`${event.code}: ${event.message}`));
    const first = await agent.run("one");
    const log = evidenceLogOf(target.store as unknown as EvidenceLogOwner);
    const signed = await log.checkpoints();
    assert.equal(signed.length, 1, failed.join("\n"));
    await launder(target, first.runId);
    await agent.run("two");
    assert.equal(failed.length, 1);
    assert.match(failed[0]!, new RegExp(`^audit_invalid: .*checkpoint of ${signed[0]!.treeSize} records`));
    assert.deepEqual(await log.checkpoints(), signed);
  },
);
