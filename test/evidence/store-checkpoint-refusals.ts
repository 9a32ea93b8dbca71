// What a store's log refuses to keep as a checkpoint, run by every kind of store through the shared
// log suite: a note that is not a checkpoint of this log under the log's key is refused with a code,
// nothing is stored, and the log's own checkpoints go on as before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { keygen, signCheckpoint, verifyCheckpoint } from "../../src/index.js";
import { evidenceLogOf, formatCheckpoint, parseCheckpoint, signNote } from "../../src/evidence/index.js";
import type { LogStoreKind } from "./store-log-suite.js";
import { origin, runsOf, signerKey, verifierKey } from "./store-log-suite.js";

const textOf = (note: string): string => note.slice(0, note.indexOf("\n\n") + 1);

/** Defines the refusal tests for one kind of store. */
export function checkpointRefusalCases(kind: LogStoreKind): void {
  const { name } = kind;

  test(`${name}: saveCheckpoint refuses a note that is not a checkpoint of this log under the key, and stores nothing`, async () => {
    const store = await kind.open();
    const other = await kind.open();
    try {
      const log = evidenceLogOf(store);
      await store.append(runsOf("one", 3));
      const good = await signCheckpoint(store, { key: signerKey, origin });
      await log.saveCheckpoint(good, { key: verifierKey });
      await store.append(runsOf("two", 2));
      const now = await signCheckpoint(store, { key: signerKey, origin });
      const { size, root } = parseCheckpoint(textOf(now));
      const stranger = keygen(origin);
      // The same size, signed by the log's own key, but the tree of another log.
      await other.append(runsOf("elsewhere", 5));
      const otherLog = await signCheckpoint(other, { key: signerKey, origin });
      const wrongRoot = Buffer.from(root);
      wrongRoot[0] = wrongRoot[0]! ^ 1;
      const signed = (fields: { origin?: string; size?: number; root?: Uint8Array }) =>
        signNote(
          formatCheckpoint({
            origin: fields.origin ?? origin,
            size: fields.size ?? size,
            root: fields.root ?? root,
            extensions: [],
          }),
          signerKey,
        );
      const tampered = now.replace(/ (\S+)\n$/, (_, base64: string) => {
        const bytes = Buffer.from(base64, "base64");
        bytes[10] = bytes[10]! ^ 1;
        return ` ${bytes.toString("base64")}\n`;
      });
      // Each one is tried only once the one before it has been refused.
      const refusals: [string, () => Promise<unknown>, string][] = [
        ["another key's", () => log.saveCheckpoint(now, { key: stranger.verifierKey }), "unknown_key"],
        [
          "a stranger's signature",
          () => log.saveCheckpoint(signNote(textOf(now), stranger.signerKey), { key: verifierKey }),
          "unknown_key",
        ],
        ["a changed signature", () => log.saveCheckpoint(tampered, { key: verifierKey }), "bad_signature"],
        ["a wrong root", () => log.saveCheckpoint(signed({ root: wrongRoot }), { key: verifierKey }), "root_mismatch"],
        ["another log's tree", () => log.saveCheckpoint(otherLog, { key: verifierKey }), "root_mismatch"],
        [
          "a root of a smaller tree",
          () => log.saveCheckpoint(signed({ size: 9 }), { key: verifierKey }),
          "root_mismatch",
        ],
        [
          "more leaves than the log",
          () => log.saveCheckpoint(signed({ size: size + 1 }), { key: verifierKey }),
          "invalid_option",
        ],
        [
          "another origin",
          () => log.saveCheckpoint(signed({ origin: "elsewhere.example/log" }), { key: verifierKey }),
          "malformed_checkpoint",
        ],
        [
          "an origin other than the one asked",
          () => log.saveCheckpoint(now, { key: verifierKey, origin: "x.example/log" }),
          "malformed_checkpoint",
        ],
        ["not a note", () => log.saveCheckpoint("a checkpoint, honestly", { key: verifierKey }), "malformed_note"],
        [
          "a note that is not a checkpoint",
          () => log.saveCheckpoint(signNote("hello\n", signerKey), { key: verifierKey }),
          "malformed_checkpoint",
        ],
        ["no key", () => log.saveCheckpoint(now, {} as never), "invalid_key"],
        ["a signer key for the verifier key", () => log.saveCheckpoint(now, { key: signerKey }), "invalid_key"],
        [
          "an unknown option",
          () => log.saveCheckpoint(now, { key: verifierKey, orgin: origin } as never),
          "invalid_option",
        ],
        ["no options", () => log.saveCheckpoint(now, undefined as never), "invalid_key"],
      ];
      for (const [what, refused, code] of refusals) await assert.rejects(refused(), { code }, what);

      assert.deepEqual(
        (await log.checkpoints()).map((entry) => entry.note),
        [good],
        "nothing was stored",
      );
      // Every later checkpoint still extends the stored one.
      const automatic = await log.checkpoint({ key: signerKey, origin });
      assert.equal(automatic.treeSize, size);
      assert.deepEqual(await verifyCheckpoint(store, automatic.note, { key: verifierKey }), []);
      const kept = await log.saveCheckpoint(now, { key: verifierKey, origin });
      assert.equal(kept.treeSize, size);
      assert.equal((await log.checkpoint({ key: signerKey, origin })).treeSize, size);
    } finally {
      await kind.close(store);
      await kind.close(other);
    }
  });
}
