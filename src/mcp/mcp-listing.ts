import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";

/** One tool as the server listed it, after leash's own checks of its shape. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, unknown>;
}

/** A listing: the tools whose shape is usable, and the others by name with the reason. */
export interface Listing {
  tools: ListedTool[];
  /** Tools left out for their shape, by MCP name (an entry without a usable name is not here). */
  bad: Map<string, string>;
}

const MAX_PAGES = 1000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Checks one listed tool on its own; a bad one is a reason, never a failure of the whole listing. */
function checkTool(raw: unknown): ListedTool | { name: string | undefined; reason: string } {
  if (!isObject(raw)) return { name: undefined, reason: "A listed tool that is not an object." };
  const { name, description, inputSchema, annotations } = raw;
  if (typeof name !== "string" || name === "") return { name: undefined, reason: "A tool without a string name." };
  if (!isObject(inputSchema)) return { name, reason: "Its `inputSchema` is missing or not an object." };
  if (inputSchema.type !== "object") return { name, reason: 'Its `inputSchema` does not have `type: "object"`.' };
  return {
    name,
    description: typeof description === "string" ? description : "",
    inputSchema,
    // A hint that is not a boolean counts as absent when the effect is derived (the riskier reading).
    annotations: isObject(annotations) ? annotations : {},
  };
}

/**
 * Reads every page of `tools/list` within one deadline for the whole listing, with a lenient result
 * schema: each tool is checked on its own, so one malformed tool is left out, not the whole server.
 * Throws when the listing itself fails (an error reply, a hang, a result without a `tools` array).
 */
export async function listTools(client: Client, timeoutMs: number): Promise<Listing> {
  const deadline = Date.now() + timeoutMs;
  const tools: ListedTool[] = [];
  const bad = new Map<string, string>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`The listing took longer than ${timeoutMs} ms.`);
    const result: Record<string, unknown> = await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      ResultSchema,
      { timeout: left },
    );
    if (!Array.isArray(result.tools)) throw new Error("The server's `tools/list` result has no `tools` array.");
    for (const raw of result.tools as unknown[]) {
      const checked = checkTool(raw);
      if ("reason" in checked) {
        if (checked.name !== undefined) bad.set(checked.name, checked.reason);
      } else tools.push(checked);
    }
    const next = result.nextCursor;
    if (next === undefined || next === null) return { tools, bad };
    if (typeof next !== "string") throw new Error("The server gave a `nextCursor` that is not a string.");
    if (seen.has(next)) throw new Error(`The server gave the cursor \`${next}\` twice.`);
    seen.add(next);
    cursor = next;
  }
  throw new Error(`The server listed more than ${MAX_PAGES} pages of tools.`);
}
