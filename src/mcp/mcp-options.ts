import { LeashError, checkOptionKeys } from "../errors/index.js";
import type { Effect } from "../tools/tool.js";
import { EFFECTS } from "../tools/tool.js";

/** An MCP server run as a child process, spoken to over stdio. */
export interface McpStdioSource {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpSource {
  url: string | URL;
  headers?: Record<string, string>;
}

/**
 * What leash uses of a connected SDK `Client` (`@modelcontextprotocol/sdk/client`): described here, so
 * the declarations of `leash/mcp` need none of the SDK's types. An SDK `Client` is one.
 */
export interface McpClient {
  listTools(
    params?: { cursor?: string },
    options?: { timeout?: number },
  ): Promise<{ tools: unknown[]; nextCursor?: string }>;
  request(
    request: { method: string; params?: Record<string, unknown> },
    resultSchema: never,
    options?: { timeout?: number },
  ): Promise<unknown>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<Record<string, unknown>>;
  setNotificationHandler(schema: never, handler: (notification: never) => void | Promise<void>): void;
  removeNotificationHandler(method: string): void;
}

/** Where {@link mcpTools} finds the server: a command, a URL, or an SDK `Client` the app connected. */
export type McpSource = McpStdioSource | McpHttpSource | McpClient;

/** What an app may say about one tool of the server, keyed by its MCP name. */
export interface McpToolOverride {
  effect?: Effect;
  idempotent?: boolean;
  scopes?: string[];
}

/** What {@link McpToolsOptions.onChange} is told after a re-read of the tools changed them. */
export interface McpToolsChange {
  /** The leash names of the tools whose definitions changed in this re-read (each redefined in place). */
  redefined: string[];
  /** The leash names of every tool that refuses calls now (no longer listed, or no longer usable). */
  refused: string[];
}

/** The options of {@link mcpTools}. */
export interface McpToolsOptions {
  /** A short name for the server: the prefix of its tools' names and of the default scope. */
  server: string;
  /** Whether the server's annotations are believed; default `"untrusted"` (every tool `external`). */
  trust?: "trusted" | "untrusted";
  /** The scopes of every tool; default `["mcp:<server>"]`. */
  scopes?: string[];
  /** Only these MCP tool names. */
  include?: string[];
  /** Leave these MCP tool names out. */
  exclude?: string[];
  /** Per MCP tool name; wins over what the annotations say. */
  overrides?: Record<string, McpToolOverride>;
  /**
   * Bounds one call; default 60 000 ms, at most 2^31 - 1. Connecting, and the whole of each listing
   * of the tools (every page), get `timeoutMs` and never less than 60 000 ms.
   */
  timeoutMs?: number;
  /**
   * Called after a `tools/list_changed` re-read (or the listing of a connection opened again after a
   * loss) changed the tools: a tool redefined in place, one that refuses calls now, or one usable again. A gateway uses it to tell its own clients; an error it
   * throws is ignored.
   */
  onChange?: (change: McpToolsChange) => void;
}

/** The options checked, with defaults filled in. */
export interface CheckedOptions {
  server: string;
  trusted: boolean;
  scopes: string[];
  include: ReadonlySet<string> | undefined;
  exclude: ReadonlySet<string>;
  overrides: Readonly<Record<string, McpToolOverride>>;
  timeoutMs: number;
  /** Bounds connecting and a whole listing of `tools/list`: `timeoutMs`, and never under a minute. */
  setupTimeoutMs: number;
  onChange: ((change: McpToolsChange) => void) | undefined;
}

/** The longest delay a Node timer can wait; a longer one fires at once. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

function bad(message: string): never {
  throw new LeashError("invalid_option", `mcpTools: ${message}`);
}

function names(value: unknown, field: string): Set<string> | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    bad(`Expected \`${field}\` to be an array of tool names.`);
  }
  return new Set(value);
}

function scopeList(value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string" && item !== "")) {
    bad(`Expected \`${field}\` to be an array of non-empty strings.`);
  }
  return [...(value as string[])];
}

function checkOverride(name: string, value: unknown): McpToolOverride {
  if (typeof value !== "object" || value === null) bad(`Expected \`overrides.${name}\` to be an object.`);
  checkOptionKeys(value, ["effect", "idempotent", "scopes"], `overrides.${name}`, { noun: "override" });
  const { effect, idempotent, scopes } = value as Record<string, unknown>;
  if (effect !== undefined && !EFFECTS.includes(effect as Effect)) {
    bad(`Expected \`overrides.${name}.effect\` to be "read", "write" or "external".`);
  }
  if (idempotent !== undefined && typeof idempotent !== "boolean") {
    bad(`Expected \`overrides.${name}.idempotent\` to be a boolean.`);
  }
  const checked: McpToolOverride = {};
  if (effect !== undefined) checked.effect = effect as Effect;
  if (idempotent !== undefined) checked.idempotent = idempotent;
  const list = scopeList(scopes, `overrides.${name}.scopes`);
  if (list !== undefined) checked.scopes = list;
  return checked;
}

const MCP_TOOLS_OPTIONS = [
  "server",
  "trust",
  "scopes",
  "include",
  "exclude",
  "overrides",
  "timeoutMs",
  "onChange",
] as const;

/** Checks {@link McpToolsOptions}; a bad option throws `LeashError` `invalid_option`. */
export function checkOptions(options: McpToolsOptions): CheckedOptions {
  if (typeof options !== "object" || options === null) bad("Expected an options object with `server`.");
  checkOptionKeys(options, MCP_TOOLS_OPTIONS, "mcpTools(source, options)");
  const { server, trust = "untrusted", timeoutMs = 60_000 } = options;
  if (typeof server !== "string" || !/^[A-Za-z0-9_-]{1,32}$/.test(server)) {
    bad("Expected `server` to match /^[A-Za-z0-9_-]{1,32}$/.");
  }
  if (trust !== "trusted" && trust !== "untrusted") bad('Expected `trust` to be "trusted" or "untrusted".');
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
    bad(`Expected \`timeoutMs\` to be a positive integer up to ${MAX_TIMEOUT_MS} (2^31 - 1).`);
  }
  if (options.onChange !== undefined && typeof options.onChange !== "function")
    bad("Expected `onChange` to be a function.");
  const overrides: Record<string, McpToolOverride> = {};
  if (options.overrides !== undefined) {
    if (typeof options.overrides !== "object" || options.overrides === null)
      bad("Expected `overrides` to be an object.");
    for (const [name, value] of Object.entries(options.overrides)) overrides[name] = checkOverride(name, value);
  }
  return {
    server,
    trusted: trust === "trusted",
    scopes: scopeList(options.scopes, "scopes") ?? [`mcp:${server}`],
    include: names(options.include, "include"),
    exclude: names(options.exclude, "exclude") ?? new Set(),
    overrides,
    timeoutMs,
    setupTimeoutMs: Math.max(timeoutMs, 60_000),
    onChange: options.onChange,
  };
}
