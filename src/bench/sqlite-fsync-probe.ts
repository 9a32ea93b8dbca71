/**
 * A child program of the SQLite fsync count: one leash run of N no-op calls on a SQLite store, run
 * under `strace -c` so that every fsync of the process is counted. Prints `{"toolCalls":N}`.
 *
 * Usage: node sqlite-fsync-probe.js <database path> <steps>
 */
import { noopAgent, openSqliteStore } from "./leash-scenarios.js";

const [path, stepsText] = process.argv.slice(2);
const steps = Number(stepsText);
if (path === undefined || !Number.isSafeInteger(steps) || steps < 0) {
  process.stderr.write("Usage: sqlite-fsync-probe <database path> <steps>\n");
  process.exit(2);
}
const store = await openSqliteStore(path);
try {
  const state = await noopAgent(steps, { store, audit: store }).run("call the no-op tool");
  process.stdout.write(JSON.stringify({ toolCalls: state.toolCalls }) + "\n");
} finally {
  await store.close();
}
