export {
  EMPTY_ROOT,
  HASH_SIZE,
  leafHash,
  nodeHash,
  verifyConsistency,
  verifyInclusion,
  type Hash,
  type NodeId,
} from "./merkle.js";
export { MemoryNodeStore, type LeafSource, type MaybePromise, type NodeStore, type StoredNode } from "./node-store.js";
export { MerkleLog } from "./merkle-log.js";
export {
  keygen,
  parseSignerKey,
  parseVerifierKey,
  type KeyPair,
  type SignerKey,
  type VerifierKey,
} from "./note-keys.js";
export {
  MAX_NOTE_BYTES,
  MAX_NOTE_SIGNATURES,
  openNote,
  signNote,
  type NoteSignature,
  type OpenedNote,
} from "./signed-note.js";
export { jsonlEvidenceLog, recordLeafHash, recordsEvidenceLog, rootOfLog, type EvidenceLog } from "./evidence-log.js";
export { formatCheckpoint, parseCheckpoint, type Checkpoint } from "./checkpoint-text.js";
export {
  signCheckpoint,
  verifyCheckpoint,
  type CheckpointProblem,
  type CheckpointProblemKind,
  type EvidenceSource,
} from "./checkpoint.js";
export {
  COSIGNATURE_ED25519,
  cosignerKeygen,
  parseCosignerKey,
  parseCosignerSigner,
  type CosignerKey,
  type CosignerSigner,
} from "./cosigner-keys.js";
export {
  addCosignatures,
  cosignatureMessage,
  cosignCheckpoint,
  verifyCosignature,
  type VerifiedCosignature,
} from "./cosignature.js";
export { storeEvidenceLog, type StoreEvidenceLog } from "./store-evidence-log.js";
export {
  evidenceLogOf,
  isEvidenceLog,
  type EvidenceLogOwner,
  type EvidenceStore,
  type RecordsHolder,
} from "./evidence-log-of.js";
export type { CheckpointRow, LogTables, RecordLeaf, StoredCheckpoint } from "./log-tables.js";
export { MemoryLogTables } from "./memory-log-tables.js";
