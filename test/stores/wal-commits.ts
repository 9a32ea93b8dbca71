// Counts the transactions committed to a SQLite database in WAL mode by reading its write-ahead log:
// each commit ends with one frame whose "database size after commit" field is set. This measures what
// the store really writes (each commit is one fsync under synchronous=FULL), not what it was asked.
import { existsSync, readFileSync } from "node:fs";

const HEADER = 32;
const FRAME_HEADER = 24;

/**
 * The commits in the WAL file of `database` since the log last restarted (a checkpoint that empties
 * the log restarts it; frames left from before carry the old salt and are not counted).
 */
export function walCommits(database: string): number {
  const path = `${database}-wal`;
  if (!existsSync(path)) return 0;
  const log = readFileSync(path);
  if (log.length < HEADER) return 0;
  const pageSize = log.readUInt32BE(8);
  const salt1 = log.readUInt32BE(16);
  const salt2 = log.readUInt32BE(20);
  let commits = 0;
  for (let offset = HEADER; offset + FRAME_HEADER + pageSize <= log.length; offset += FRAME_HEADER + pageSize) {
    if (log.readUInt32BE(offset + 8) !== salt1 || log.readUInt32BE(offset + 12) !== salt2) break;
    if (log.readUInt32BE(offset + 4) !== 0) commits += 1;
  }
  return commits;
}
