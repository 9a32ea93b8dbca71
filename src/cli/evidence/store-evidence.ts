import { CliError } from "../cli-error.js";
import type { CliStore } from "../open-store.js";
import type { CliEvidence } from "./cli-evidence.js";

/** A store's evidence log as a {@link CliEvidence}. */
export function storeEvidence(store: CliStore, label: string): Promise<CliEvidence> {
  void store;
  return Promise.reject(new CliError("invalid_option", `The store ${label} keeps no evidence log yet.`));
}
