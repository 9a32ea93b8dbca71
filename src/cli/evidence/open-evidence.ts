import { withExistingStore } from "../../operate/open-store.js";
import { jsonlEvidence, type CliEvidence } from "./cli-evidence.js";
import type { EvidenceTarget } from "./evidence-target.js";
import { storeEvidence } from "./store-evidence.js";

/**
 * Runs `body` with the evidence of a target: a JSONL trail's, or an existing store's (closed after
 * `body`, whatever happens). Nothing is created at a mistyped place.
 *
 * @example
 * await withEvidence(evidenceTarget(path, options), async (evidence) => evidence.size());
 */
export async function withEvidence<T>(target: EvidenceTarget, body: (evidence: CliEvidence) => Promise<T>): Promise<T> {
  if (target.kind === "jsonl") return body(await jsonlEvidence(target.path));
  return withExistingStore(target.location, async (store) => body(await storeEvidence(store, target.location.label)));
}
