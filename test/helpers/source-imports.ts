import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The folder of leash's source, whose imports the layer tests read. */
export const SOURCE_ROOT = fileURLToPath(new URL("../../src/", import.meta.url));

/** One import of one source file of another, by their paths under `src/`. */
export interface SourceImport {
  /** The importing file, e.g. `inbox/html.ts`. */
  from: string;
  /** The imported file, e.g. `operate/escape-text.ts`. */
  to: string;
  /** The specifier as written. */
  specifier: string;
  /** `import type` or `export type`: erased by the compiler, so it loads nothing at run time. */
  typeOnly: boolean;
  /** `import("...")`: loaded only when the code runs it. */
  dynamic: boolean;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    clause !== undefined &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((element) => element.isTypeOnly)
  );
}

/** Every `.ts` file under `src/`, as paths relative to it. */
export function sourceFiles(): string[] {
  return readdirSync(SOURCE_ROOT, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => file.split("\\").join("/"))
    .sort();
}

/**
 * Every import between files of `src/`: static imports, re-exports and `import("...")` with a
 * literal specifier, read from each file's syntax tree (never by matching text, which a string or a
 * comment could fool). Imports of packages and of `node:` modules are left out.
 */
export function sourceImports(): SourceImport[] {
  const found: SourceImport[] = [];
  for (const file of sourceFiles()) {
    const path = join(SOURCE_ROOT, file);
    const tree = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
    const add = (specifier: string, typeOnly: boolean, dynamic: boolean): void => {
      if (!specifier.startsWith(".")) return;
      const target = resolve(dirname(path), specifier.replace(/\.js$/, ".ts"));
      found.push({ from: file, to: relative(SOURCE_ROOT, target).split("\\").join("/"), specifier, typeOnly, dynamic });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        add(node.moduleSpecifier.text, isTypeOnlyImport(node), false);
      } else if (
        ts.isExportDeclaration(node) &&
        node.moduleSpecifier !== undefined &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        add(node.moduleSpecifier.text, isTypeOnlyExport(node), false);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] !== undefined &&
        ts.isStringLiteralLike(node.arguments[0])
      ) {
        add(node.arguments[0].text, false, true);
      }
      ts.forEachChild(node, visit);
    };
    visit(tree);
  }
  return found;
}

/** The folder a source file belongs to: the first part of its path (`stores/sqlite/x.ts` is `stores`); `index.ts` for the root. */
export function folderOf(file: string): string {
  const slash = file.indexOf("/");
  return slash === -1 ? file : file.slice(0, slash);
}
