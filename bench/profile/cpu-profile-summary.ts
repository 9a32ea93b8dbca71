/** A V8 CPU profile, as `node --cpu-prof` writes it and the inspector's `Profiler.stop` returns it. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** One line of a profile summary: a function or a file, with its share of the sampled time. */
export interface ProfileEntry {
  name: string;
  /** Time in the entry itself, in milliseconds. */
  selfMs: number;
  /** Time in it and everything it called, in milliseconds (a recursive call counted once). */
  totalMs: number;
}

/** Self and total time by function and by source file. */
export interface ProfileSummary {
  totalMs: number;
  functions: ProfileEntry[];
  files: ProfileEntry[];
}

/** A file's path from the repository's `src/` or `node_modules/` on, or the URL as it is. */
function shortFile(url: string): string {
  if (url === "") return "(native or V8)";
  const match = /\/((?:src|node_modules)\/.*)$/.exec(url);
  return match?.[1] ?? url.replace(/^file:\/\//, "");
}

function bump(table: Map<string, ProfileEntry>, name: string, field: "selfMs" | "totalMs", micros: number): void {
  let entry = table.get(name);
  if (entry === undefined) {
    entry = { name, selfMs: 0, totalMs: 0 };
    table.set(name, entry);
  }
  entry[field] += micros / 1000;
}

/**
 * Sums a CPU profile's samples by function (`name file`) and by file: the time spent in each itself
 * and in everything it called. Both lists are sorted by self time, largest first.
 */
export function summarizeCpuProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfByNode = new Map<number, number>();
  profile.samples.forEach((id, index) =>
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)),
  );
  const functions = new Map<string, ProfileEntry>();
  const files = new Map<string, ProfileEntry>();
  let totalMicros = 0;
  for (const [id, micros] of selfByNode) {
    totalMicros += micros;
    const node = byId.get(id);
    if (node === undefined) continue;
    const file = shortFile(node.callFrame.url);
    bump(functions, `${node.callFrame.functionName || "(anonymous)"} ${file}`, "selfMs", micros);
    bump(files, file, "selfMs", micros);
    // Walk up the stack once per sample, counting each function and file once however often it recurs.
    const seenFunctions = new Set<string>();
    const seenFiles = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)?.callFrame;
      if (frame === undefined) break;
      const frameFile = shortFile(frame.url);
      const name = `${frame.functionName || "(anonymous)"} ${frameFile}`;
      if (!seenFunctions.has(name)) {
        seenFunctions.add(name);
        bump(functions, name, "totalMs", micros);
      }
      if (!seenFiles.has(frameFile)) {
        seenFiles.add(frameFile);
        bump(files, frameFile, "totalMs", micros);
      }
    }
  }
  const bySelf = (a: ProfileEntry, b: ProfileEntry): number => b.selfMs - a.selfMs;
  return {
    totalMs: totalMicros / 1000,
    functions: [...functions.values()].sort(bySelf),
    files: [...files.values()].sort(bySelf),
  };
}
