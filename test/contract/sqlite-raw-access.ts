// Raw writes to a SQLite store's file for the store contract (sqlite-store.test.ts) and the summaries
// conformance suite, made on connections of their own as another program would.
import Database from "better-sqlite3";
import type { RawAccess } from "./contract-fixtures.js";

/** Writes to the file's tables on a connection of its own, as another program would. */
export function rawAccess(path: string): RawAccess {
  const write = (text: string, values: unknown[]): Promise<void> => {
    const raw = new Database(path);
    try {
      raw.prepare(text).run(...values);
    } finally {
      raw.close();
    }
    return Promise.resolve();
  };
  return {
    setStateText: (runId, text) => write("UPDATE runs SET state = ? WHERE run_id = ?", [text, runId]),
    setRecordText: (runId, seq, text) =>
      write("UPDATE audit SET record = ? WHERE run_id = ? AND seq = ?", [text, runId, seq]),
  };
}
