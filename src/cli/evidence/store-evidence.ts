import { evidenceLogOf } from "../../evidence/index.js";
import type { EvidenceStore } from "../../evidence/index.js";
import { CliError } from "../cli-error.js";
import type { CliStore } from "../../operate/open-store.js";
import type { CliEvidence } from "./cli-evidence.js";

/**
 * A store's evidence log as a {@link CliEvidence}: its sequenced tree for roots and proofs, the store
 * itself for signing and checking (which recompute the tree from the records), and its table of
 * checkpoints for the notes it signs.
 *
 * @example
 * const evidence = await storeEvidence(store, "app.db");
 */
export function storeEvidence(store: CliStore, label: string): Promise<CliEvidence> {
  if (!isEvidenceStore(store)) {
    return Promise.reject(new CliError("invalid_option", `The store ${label} keeps no evidence log.`));
  }
  const log = evidenceLogOf(store);
  return Promise.resolve({
    label,
    source: store,
    sequence: async () => {
      await log.sequence();
    },
    size: async () => log.size(),
    root: (size) => log.root(size),
    leafHash: async (index) => (await log.leafHashes(index, index + 1))[0]!,
    inclusionProof: (index, size) => log.inclusionProof(index, size),
    consistencyProof: (oldSize, size) => log.consistencyProof(oldSize, size),
    lastLeafOf: async (runId) => {
      const last = (await store.read(runId)).at(-1);
      if (last === undefined) return undefined;
      return { seq: last.seq, leafIndex: await log.leafIndexOf(runId, last.seq) };
    },
    latestCheckpoint: async () => (await log.latestCheckpoint())?.note,
    saveCheckpoint: async (note, verifierKey) => {
      await log.saveCheckpoint(note, { key: verifierKey });
    },
  });
}

/** Whether a store is a Merkle log of its own tables (SQLite and PostgreSQL stores are). */
function isEvidenceStore(store: CliStore): store is CliStore & EvidenceStore {
  return typeof (store as Partial<EvidenceStore>).evidenceLog === "function";
}
