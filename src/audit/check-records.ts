import { LeashError } from "../errors/index.js";
import type { AuditRecord } from "./audit-record.js";
import { isMadeRecord } from "./audit-record.js";
import { parseAuditRecord } from "./parse-audit-record.js";

/**
 * @internal Checks the records given to a sink's `append` and returns fresh copies of them (holding the
 * same `data`), or throws `audit_corrupt` naming the first that is not a well-formed record.
 */
export function checkRecords(records: readonly AuditRecord[]): AuditRecord[] {
  if (!Array.isArray(records)) {
    throw new LeashError("audit_corrupt", "Expected the records to append to be an array of audit records.");
  }
  const checked: AuditRecord[] = [];
  for (let index = 0; index < records.length; index++) {
    const given: unknown = records[index];
    if (isMadeRecord(given)) {
      checked.push(given as AuditRecord);
      continue;
    }
    const record = parseAuditRecord(given);
    if (typeof record === "string") {
      throw new LeashError(
        "audit_corrupt",
        `Expected record ${index} of those to append to be an audit record, but ${record}; nothing was appended.`,
        { details: { index } },
      );
    }
    checked.push(record);
  }
  return checked;
}
