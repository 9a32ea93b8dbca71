import ts from "typescript";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, dirname, resolve, relative } from "node:path";
const root = resolve("src");
const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts")).map((f) => join(root, f));
type Edge = { from: string; to: string; typeOnly: boolean; dynamic: boolean };
const edges: Edge[] = [];
for (const file of files) {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const add = (spec: string, typeOnly: boolean, dynamic: boolean) => {
    if (!spec.startsWith(".")) return;
    const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
    edges.push({ from: relative(root, file), to: relative(root, target), typeOnly, dynamic });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      const typeOnly = c !== undefined && (c.isTypeOnly || (c.name === undefined && c.namedBindings !== undefined && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.length > 0 && c.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly, false);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && node.exportClause.elements.length > 0 && node.exportClause.elements.every((e) => e.isTypeOnly));
      add(node.moduleSpecifier.text, typeOnly, false);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      add(node.arguments[0].text, false, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
const mode = process.argv[2] ?? "all";
const use = edges.filter((e) => !e.dynamic && (mode === "all" || !e.typeOnly));
const adj = new Map<string, string[]>();
for (const e of use) { if (!adj.has(e.from)) adj.set(e.from, []); adj.get(e.from)!.push(e.to); }
// Tarjan SCC
let index = 0; const idx = new Map<string, number>(), low = new Map<string, number>(), on = new Set<string>(), st: string[] = []; const sccs: string[][] = [];
const strong = (v: string) => { idx.set(v, index); low.set(v, index); index++; st.push(v); on.add(v);
  for (const w of adj.get(v) ?? []) { if (!idx.has(w)) { strong(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!)); }
  if (low.get(v) === idx.get(v)) { const c: string[] = []; let w; do { w = st.pop()!; on.delete(w); c.push(w); } while (w !== v); if (c.length > 1 || (adj.get(v) ?? []).includes(v)) sccs.push(c); } };
for (const f of files.map((f) => relative(root, f))) if (!idx.has(f)) strong(f);
console.log(mode, "SCCs:", sccs.length);
for (const c of sccs) console.log(" -", c.length, c.sort().join(" "));
if (process.argv[3] === "folders") {
  const folder = (f: string) => (f.includes("/") ? f.split("/")[0] : f);
  const pairs = new Map<string, Set<string>>();
  for (const e of edges) { const a = folder(e.from), b = folder(e.to); if (a === b) continue; if (!pairs.has(a)) pairs.set(a, new Set()); pairs.get(a)!.add(b + (e.typeOnly ? "(t)" : "") + (e.dynamic ? "(d)" : "")); }
  for (const [a, s] of [...pairs].sort()) console.log(a, "->", [...s].sort().join(" "));
}
const inScc = new Map<string, number>(); sccs.forEach((c, i) => c.forEach((f) => inScc.set(f, i)));
for (const e of use) if (inScc.has(e.from) && inScc.get(e.from) === inScc.get(e.to)) console.log("   edge", e.from, "->", e.to, e.typeOnly ? "(type)" : "");
