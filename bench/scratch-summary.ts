import { readFileSync } from "node:fs";
interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] }
const profile = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const label = (n: Node) => `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.replace(/.*\/(src|node_modules)\//, "$1/")}:${n.callFrame.lineNumber + 1}`;
const selfBy = new Map<string, number>(); const totalBy = new Map<string, number>();
let all = 0;
for (const [id, t] of self) {
  all += t;
  const n = byId.get(id)!;
  selfBy.set(label(n), (selfBy.get(label(n)) ?? 0) + t);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (seen.has(l)) continue; seen.add(l);
    totalBy.set(l, (totalBy.get(l) ?? 0) + t);
  }
}
const filter = process.argv[3] ?? "";
console.log("total ms", (all / 1000).toFixed(0));
console.log("--- self");
for (const [l, t] of [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log((100 * t / all).toFixed(1).padStart(5), l);
console.log("--- total");
for (const [l, t] of [...totalBy].filter(([l]) => l.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log((100 * t / all).toFixed(1).padStart(5), l);
