/**
 * Every run `leash mcp serve` starts has an id that begins with this. A gateway run id is letters,
 * digits and `_` only: one word, which a double-click selects whole and `\w+` matches whole. Kept below
 * the gateway because answering a run (`answer-run.ts`) tells a person what happens next, which differs
 * for a gateway's run: the client's next call runs it, not the app.
 */
export const RUN_PREFIX = "mcp_";

/** The start of the ids of runs an older gateway started (`mcp-<key>-<random>-<host>.<pid>`). */
export const OLDER_RUN_PREFIX = "mcp-";

/** Whether a run id is one of a run the gateway started (this one or an older one). */
export function isGatewayRunId(runId: string): boolean {
  return runId.startsWith(RUN_PREFIX) || runId.startsWith(OLDER_RUN_PREFIX);
}
