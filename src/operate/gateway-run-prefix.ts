/**
 * Every run `leash mcp serve` starts has an id that begins with this. Kept below the gateway because
 * answering a run (`answer-run.ts`) tells a person what happens next, which differs for a gateway's
 * run: the client's next call runs it, not the app.
 */
export const RUN_PREFIX = "mcp-";
