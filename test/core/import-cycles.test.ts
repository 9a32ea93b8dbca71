import { test } from "node:test";
import assert from "node:assert/strict";
import { sourceFiles, sourceImports } from "../helpers/source-imports.js";
import type { SourceImport } from "../helpers/source-imports.js";

// Every static import counts, type-only ones included: a type cycle is no load-time hazard, but it
// ties two modules as tightly as a value does, and the floors are only real if no module leans on one
// that leans on it. `import("...")` does not count: it loads when the code runs, after both modules
// have loaded, which is what a lazy driver or a command's module relies on.

/** The cycles of the graph: each strongly connected set of more than one file, or a file that imports itself. */
function cyclesOf(files: readonly string[], imports: readonly SourceImport[]): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const { from, to, dynamic } of imports) if (!dynamic) next.get(from)?.push(to);
  // Tarjan's algorithm, without recursion so that a deep chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  for (const start of files) {
    if (index.has(start)) continue;
    const work: { file: string; edge: number }[] = [{ file: start, edge: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { file: string; edge: number };
      const targets = next.get(frame.file) ?? [];
      if (frame.edge < targets.length) {
        const target = targets[frame.edge++] as string;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.file, Math.min(low.get(frame.file) as number, index.get(target) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined)
        low.set(parent.file, Math.min(low.get(parent.file) as number, low.get(frame.file) as number));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.file);
      if (component.length > 1 || targets.includes(frame.file)) found.push(component.sort());
    }
  }
  return found;
}

test("no module of src/ imports, even for a type, a module that imports it back", () => {
  assert.deepEqual(cyclesOf(sourceFiles(), sourceImports()), []);
});

test("the cycle check finds a cycle of type imports, a long one and a self-import, and ignores dynamic imports", () => {
  const edge = (from: string, to: string, typeOnly = false, dynamic = false): SourceImport => ({
    from,
    to,
    specifier: to,
    typeOnly,
    dynamic,
  });
  const files = ["a.ts", "b.ts", "c.ts", "d.ts", "e.ts", "f.ts", "g.ts"];
  const imports = [
    edge("a.ts", "b.ts"),
    edge("b.ts", "a.ts", true),
    edge("c.ts", "d.ts"),
    edge("d.ts", "e.ts"),
    edge("e.ts", "c.ts", true),
    edge("f.ts", "f.ts"),
    edge("g.ts", "a.ts"),
    edge("a.ts", "g.ts", false, true),
  ];
  assert.deepEqual(cyclesOf(files, imports).sort(), [["a.ts", "b.ts"], ["c.ts", "d.ts", "e.ts"], ["f.ts"]]);
});
