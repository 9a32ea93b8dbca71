// A store's rows keep a record's digest twice: in its text and in the `digest` column. The column is
// checked against the text (plain verify, verify --checkpoint, verifyChains), and the log's leaves are
// the digests in the text, never the column alone.
import assert from "node:assert/strict";
import { evidenceLogOf } from "../../src/evidence/index.js";
import type { EvidenceLogOwner } from "../../src/evidence/index.js";
import { eachStore, type CliStore } from "./cli-stores.js";
import { leash } from "./cli-helpers.js";
import { makeKeys, runInto } from "./evidence-helpers.js";
import { setDigestColumn } from "./evidence-store-tamper.js";
import { specLeaf, specRoot } from "../evidence/spec-checker.js";

const ZEROS = "0".repeat(64);

interface Problem {
  problem: string;
  run?: string | null;
  seq?: number | null;
}

const logOf = (target: CliStore) => evidenceLogOf(target.store as unknown as EvidenceLogOwner);

eachStore(
  "a row whose digest column is not its record's digest is digest_mismatch, with run and seq, for plain verify, verify --checkpoint and verifyChains",
  async (_t, target) => {
    const runs = await runInto(target.store, [1, 2]);
    const { keyFile, verifierKey } = makeKeys(target.cwd);
    const signed = leash(
      ["checkpoint", ...target.args, "--key-file", keyFile, "--origin", "example.com/leash", "--out", "cp.note"],
      { cwd: target.cwd },
    );
    assert.equal(signed.status, 0, signed.stderr);
    await setDigestColumn(target, runs[1]!, 1, ZEROS);
    const expected = { problem: "digest_mismatch", run: runs[1], seq: 1 };
    const pick = ({ problem, run, seq }: Problem) => ({ problem, run, seq });

    const plain = leash(["verify", ...target.args, "--json"], { cwd: target.cwd });
    assert.equal(plain.status, 1, plain.stdout + plain.stderr);
    const report = JSON.parse(plain.stdout) as { problems: Problem[] };
    assert.deepEqual(report.problems.map(pick), [expected]);

    const check = ["verify", ...target.args, "--checkpoint", "cp.note", "--key", verifierKey, "--json"];
    const checked = leash(check, { cwd: target.cwd });
    assert.equal(checked.status, 1, checked.stdout + checked.stderr);
    assert.deepEqual((JSON.parse(checked.stdout) as Problem[]).map(pick), [expected]);

    assert.deepEqual((await logOf(target).verifyChains()).map(pick), [expected]);
  },
);

eachStore(
  "the sequencer takes a new record's leaf from its text, not from a digest column changed before it was sequenced",
  async (_t, target) => {
    await runInto(target.store, [1]);
    const log = logOf(target);
    await log.sequence();
    const [late] = await runInto(target.store, [2]);
    await setDigestColumn(target, late!, 2, ZEROS);
    const size = await log.sequence();
    const records = await target.store.read();
    assert.equal(size, records.length);
    const fromText = specRoot(records.map((record) => specLeaf(Buffer.from(record.digest, "hex"))));
    assert.deepEqual(Buffer.from(await log.root(size)), fromText);
  },
);
