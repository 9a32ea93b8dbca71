import { createRequire } from "node:module";
import type { RE2JS } from "re2js";
import { messageOf } from "../errors/index.js";
import type { PatternEngine } from "../tools/schema-validator.js";
import { re2Pattern } from "./re2-pattern.js";

/**
 * The pattern engine leash validates an MCP server's schemas with: RE2 (through `re2js`, a pure-JS
 * port), which matches in time linear in the text, so no pattern a server lists can hang the process
 * (`^a*a*a*a*a*a*a*a*a*$` backtracks exponentially in JavaScript's engine). A pattern is first
 * compiled as ECMAScript (so one JSON Schema refuses still fails), then translated to RE2 with the
 * same meaning ({@link re2Pattern}). A pattern RE2 cannot match (a backreference, a lookaround, a
 * repeat count above 1000) throws, so the schema does not compile and the tool is skipped with the
 * reason.
 */
export const linearPatterns: PatternEngine = Object.assign(
  (source: string, flags: string) => {
    // Only compiled, never run: ECMAScript's parser is not where backtracking happens.
    new RegExp(source, flags);
    let compiled: RE2JS;
    try {
      compiled = re2js().compile(re2Pattern(source));
    } catch (error) {
      throw new Error(
        `its pattern ${JSON.stringify(source)} cannot be checked in linear time (${messageOf(error)}); leash checks a server's patterns with RE2`,
        { cause: error },
      );
    }
    // ajv keeps one compiled pattern per `toString()` of what this returns: it must name the pattern.
    const name = `re2:/${source}/${flags}`;
    return { test: (text: string) => compiled.test(text), toString: () => name };
  },
  { code: "leash.linearPatterns" },
);

let engine: typeof RE2JS | undefined;

/**
 * `re2js`, loaded at the first pattern compiled (its CommonJS build, synchronously, as ajv asks for a
 * pattern): it is some 260 KB of code that every command opening a store would otherwise load (the
 * stores' grant and edit schemas are compiled with this engine), taking about 20 ms at start.
 */
function re2js(): typeof RE2JS {
  engine ??= (createRequire(import.meta.url)("re2js") as { RE2JS: typeof RE2JS }).RE2JS;
  return engine;
}
