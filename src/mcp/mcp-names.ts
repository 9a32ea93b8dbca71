const LIMIT = 64;

/** The leash name of an MCP tool before it is made unique: `<server>__<name>`, sanitized, cut to 64. */
export function baseName(server: string, mcpName: string): string {
  return `${server}__${mcpName}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, LIMIT);
}

/**
 * Leash names for an MCP server's tools: `<server>__<name>`, every character outside
 * `[A-Za-z0-9_-]` replaced by `_`, cut to 64 characters, and made unique with a numbered suffix,
 * also against `taken` (the names of other servers' tools, to which these names are added).
 * Returns a map from MCP name to leash name, in the order given.
 */
export function leashNames(
  server: string,
  mcpNames: readonly string[],
  taken: Set<string> = new Set(),
): Map<string, string> {
  const result = new Map<string, string>();
  for (const mcpName of mcpNames) {
    const base = baseName(server, mcpName);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) {
      const suffix = `_${n}`;
      name = base.slice(0, LIMIT - suffix.length) + suffix;
    }
    taken.add(name);
    result.set(mcpName, name);
  }
  return result;
}
