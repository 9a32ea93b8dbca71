import * as fs from "node:fs";
import { LeashError, messageOf } from "../errors/index.js";
import type { AuditRecord } from "./audit-record.js";
import { parseAuditRecord } from "./parse-audit-record.js";

export { parseAuditRecord, inspectAuditRecord, emptyInspectedRecord } from "./parse-audit-record.js";

/** A last line cut short by a crash while it was written: where it starts and what it holds. */
export interface TornTail {
  /** Its line number, from 1. */
  line: number;
  /** The byte offset where it starts: the length of the file once it is removed. */
  offset: number;
  /** How many bytes it holds. */
  bytes: number;
  /** Its bytes decoded as UTF-8 (lossily, since a cut may split a character). */
  text: string;
}

/** What {@link readAuditPrefix} found: every record before a torn last line, and that line if any. */
export interface AuditPrefix {
  records: AuditRecord[];
  tornTail: TornTail | null;
}

/** @internal What {@link parseAuditBytes} found in a run of bytes of a JSONL trail. */
interface ParsedAuditBytes {
  /** The records of the lines that end in "\n". */
  records: AuditRecord[];
  /** How many bytes those lines take (up to and including the last "\n"). */
  completeBytes: number;
  /** The number of the line after them. */
  nextLine: number;
  /** The bytes after the last "\n": a whole record, a torn line, or nothing. */
  tail: { type: "record"; record: AuditRecord } | { type: "torn"; torn: TornTail; problem: string } | null;
}

// Fatal, so that a flipped byte that breaks UTF-8 makes the line unreadable instead of turning into
// U+FFFD; BOM kept, so that no byte of a line is dropped silently.
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Reads a JSONL audit trail: one record per line, every line checked, none cast.
 *
 * Throws `LeashError` with code `audit_torn` when the last line was cut short (it is not a record and
 * no "\n" follows it: a crash while writing it; {@link repairAudit} removes it), `audit_corrupt` when
 * any other line is not a record, `audit_not_found` when there is no file. Both name the file and line
 * (`details: { path, line }`). Empty lines are skipped.
 *
 * @example
 * const problems = verifyAudit(readAudit("audit.jsonl"));
 */
export function readAudit(path: string): AuditRecord[] {
  const { records, tornTail } = readAuditPrefix(path);
  if (tornTail !== null) throw tornError(path, tornTail, "it is not a whole record");
  return records;
}

/**
 * Reads a JSONL audit trail like {@link readAudit}, but returns a torn last line instead of throwing
 * for it: `{ records, tornTail }`, where `tornTail` is null when the file ends cleanly. A line in the
 * middle that is not a record still throws `audit_corrupt`: only a crash mid-write explains a torn
 * end, and nothing explains a bad middle.
 */
export function readAuditPrefix(path: string): AuditPrefix {
  const parsed = parseAuditBytes(readBytes(path), path, 1);
  if (parsed.tail === null) return { records: parsed.records, tornTail: null };
  if (parsed.tail.type === "record") return { records: [...parsed.records, parsed.tail.record], tornTail: null };
  return { records: parsed.records, tornTail: parsed.tail.torn };
}

/**
 * Removes a torn last line from a JSONL audit trail and returns what it removed, or null when the file
 * ends cleanly. It never removes anything else: a bad line in the middle throws `audit_corrupt`.
 * Run it while no process appends to the file. A caller that keeps the head of the run elsewhere (a
 * saved state's `auditHead`) should first check that the head is not the torn record.
 */
export function repairAudit(path: string): TornTail | null {
  const { tornTail } = readAuditPrefix(path);
  if (tornTail === null) return null;
  try {
    fs.truncateSync(path, tornTail.offset);
  } catch (error) {
    throw new LeashError("audit_failed", `Could not remove the torn last line of the audit trail ${path}.`, {
      details: { path, line: tornTail.line },
      cause: error,
    });
  }
  return tornTail;
}

/**
 * @internal Parses the bytes of a JSONL trail that start at line `firstLine`: every line that ends in
 * "\n" must be a record (`audit_corrupt` otherwise); the bytes after the last "\n" are returned as
 * `tail`, for the caller to decide between a torn line and one still being written.
 */
export function parseAuditBytes(bytes: Uint8Array, path: string, firstLine: number): ParsedAuditBytes {
  const records: AuditRecord[] = [];
  let start = 0;
  let line = firstLine;
  for (let end = bytes.indexOf(0x0a, start); end !== -1; end = bytes.indexOf(0x0a, start)) {
    if (end > start) {
      const parsed = parseLine(bytes.subarray(start, end));
      if (typeof parsed === "string") {
        throw new LeashError(
          "audit_corrupt",
          `Line ${line} of the audit trail ${path} is not an audit record: ${parsed}.`,
          {
            details: { path, line },
          },
        );
      }
      records.push(parsed);
    }
    start = end + 1;
    line++;
  }
  const result: ParsedAuditBytes = { records, completeBytes: start, nextLine: line, tail: null };
  if (start < bytes.length) {
    const rest = bytes.subarray(start);
    const parsed = parseLine(rest);
    result.tail =
      typeof parsed === "string"
        ? {
            type: "torn",
            torn: { line, offset: start, bytes: rest.length, text: Buffer.from(rest).toString("utf8") },
            problem: parsed,
          }
        : { type: "record", record: parsed };
  }
  return result;
}

/** @internal The `audit_torn` error for a torn last line of the trail at `path`. */
export function tornError(path: string, torn: TornTail, problem: string): LeashError {
  return new LeashError(
    "audit_torn",
    `The last line (${torn.line}) of the audit trail ${path} was cut short by a crash while it was written ` +
      `(${torn.bytes} bytes with no line end; ${problem}); repairAudit removes it.`,
    { details: { path, line: torn.line, bytes: torn.bytes } },
  );
}

function readBytes(path: string): Buffer {
  try {
    return fs.readFileSync(path);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") {
      throw new LeashError("audit_not_found", `There is no audit trail at ${path}.`, { details: { path } });
    }
    throw new LeashError("audit_failed", `Could not read the audit trail at ${path}: ${messageOf(error)}`, {
      details: { path },
      cause: error,
    });
  }
}

function parseLine(bytes: Uint8Array): AuditRecord | string {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return "it is not valid UTF-8";
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `it is not JSON (${messageOf(error)})`;
  }
  return parseAuditRecord(value);
}
