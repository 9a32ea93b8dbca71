import type { AuditHead } from "../../audit/audit-record.js";
import { CliError } from "../cli-error.js";

/**
 * Parses `--head SEQ:DIGEST`: the last record of a run as kept outside the trail (a saved state's
 * `auditHead`, a checkpoint), against which a trail cut after its last record shows as `truncated`.
 */
function parseHead(text: string): AuditHead {
  const match = /^(\d{1,15}):([0-9a-f]{64})$/.exec(text.trim());
  if (match === null) {
    throw new CliError(
      "invalid_option",
      `Expected --head to be SEQ:DIGEST (a seq and 64 lowercase hex digits), not ${JSON.stringify(text)}.`,
    );
  }
  return { seq: Number(match[1]), digest: match[2] as string };
}

/**
 * The heads to check a trail against, by run: those the store's states give, and `--head` for the run
 * `--run` names, or for the only run of the trail.
 */
export function headsWith(
  heads: Record<string, AuditHead>,
  runs: readonly string[],
  head: string | undefined,
  run: string | undefined,
): Record<string, AuditHead> {
  if (head === undefined) {
    if (run !== undefined)
      throw new CliError("invalid_option", "--run names the run of --head; give --head SEQ:DIGEST with it.");
    return heads;
  }
  const parsed = parseHead(head);
  if (run !== undefined) return { ...heads, [run]: parsed };
  if (runs.length !== 1) {
    throw new CliError(
      "invalid_option",
      `The trail holds ${runs.length} runs: say which one --head is for with --run RUN.`,
    );
  }
  return { ...heads, [runs[0] as string]: parsed };
}
