/**
 * `leash/witness`: a C2SP tlog-witness server (its state in SQLite) and the client that submits
 * checkpoints to witnesses. The cosignatures themselves (`cosignCheckpoint`, `verifyCosignature`,
 * `addCosignatures`, `cosignerKeygen`) are in `leash`.
 */
export { startWitness, type RunningWitness, type WitnessOptions } from "./witness-server.js";
export {
  addCheckpoint,
  parseAddCheckpoint,
  MAX_PROOF_LINES,
  SIZE_CONTENT_TYPE,
  type AddCheckpointRequest,
  type WitnessAnswer,
  type WitnessContext,
} from "./add-checkpoint.js";
export { WitnessState, type WitnessDecision, type WitnessedCheckpoint } from "./witness-state.js";
export { submitToWitness, witnessCheckpoint, type WitnessSubmission } from "./submit-to-witness.js";
export { keptCosignatures } from "./witness-answer.js";
export { witnessLogs } from "./witness-logs.js";
