import { LeashError, checkOptionKeys } from "../errors/index.js";
import type { Json } from "../json/index.js";
import type { ModelRequest, ModelResponse } from "../models/model-client.js";
import type { ToolDescription } from "../tools/tool.js";
import type { GuardPoint } from "../state/said-line.js";

/** A guard's answer: let the work go on, or stop it and say why. */
export type Verdict = { type: "allow" } | { type: "block"; why: string };

/** Lets the work go on. */
export function allow(): Verdict {
  return { type: "allow" };
}

/** Stops the work; `why` is recorded in the trail and said in the trace. */
export function block(why: string): Verdict {
  return { type: "block", why };
}

/** What a guard is told about the work it checks. */
export interface GuardedWork {
  /** The agent's name. */
  agent: string;
  /** The skill being done, if any. */
  skill?: string;
  /** The run id. */
  task: string;
  /** The person the work runs as (the run's principal), if any. */
  person?: string;
}

/**
 * The app's own second check on what goes to and comes from models and tools. Who may do what is
 * the policy's; a guard is for what the policy cannot say: which text may go to a model, which
 * arguments are never acceptable. Guards are asked in the order listed; the first that blocks decides.
 *
 * @example
 * const shopRules: Guard = {
 *   name: "Shop rules",
 *   beforeTool: (work, tool, args) =>
 *     JSON.stringify(args).includes("customer's fault") ? block("A note does not blame the customer.") : allow(),
 * };
 */
export interface Guard {
  name: string;
  beforeModel?(work: GuardedWork, request: ModelRequest): Verdict | Promise<Verdict>;
  afterModel?(work: GuardedWork, response: ModelResponse): Verdict | Promise<Verdict>;
  beforeTool?(work: GuardedWork, tool: ToolDescription, args: Json): Verdict | Promise<Verdict>;
  afterTool?(work: GuardedWork, tool: ToolDescription, result: Json): Verdict | Promise<Verdict>;
}

/** The four points where guards are asked. */
export type { GuardPoint };

/** The four hooks a guard may have, in the order a run meets them. */
const GUARD_POINTS: readonly GuardPoint[] = ["beforeModel", "afterModel", "beforeTool", "afterTool"];

/**
 * Checks one guard when an agent is built and copies it: an object with a non-empty string `name`,
 * whose hooks are functions or absent. A hook that is there but not a function would silently guard
 * nothing. Each field is read once; the copy is a plain frozen object of the name and the hooks bound
 * to the guard (a class keeps its `this`), so a guard cannot be switched off or swapped after build.
 *
 * @throws LeashError `invalid_option`, naming the guard and the hook.
 */
export function checkGuard(guard: unknown, index: number): Guard {
  if (typeof guard !== "object" || guard === null)
    throw new LeashError("invalid_option", `Expected \`guards[${index}]\` to be a guard object.`);
  const { name } = guard as { name?: unknown };
  if (typeof name !== "string" || name === "")
    throw new LeashError("invalid_option", `Expected \`guards[${index}]\` to have a non-empty string \`name\`.`);
  checkGuardKeys(guard, name, index);
  const copy: Record<string, unknown> = { name };
  for (const point of GUARD_POINTS) {
    const hook = (guard as Record<string, unknown>)[point];
    if (hook !== undefined && typeof hook !== "function") {
      throw new LeashError(
        "invalid_option",
        `Expected \`${point}\` of guard \`${name}\` to be a function (or absent); it is ${hook === null ? "null" : typeof hook}, which would guard nothing.`,
        { details: { guard: name, hook: point } },
      );
    }
    if (typeof hook === "function") copy[point] = (hook as (...args: unknown[]) => unknown).bind(guard);
  }
  return Object.freeze(copy) as unknown as Guard;
}

const normalized = (key: string): string => key.toLowerCase().replace(/[_-]/g, "");

/** Whether two names are at most `limit` single-character edits apart (Levenshtein). */
function near(left: string, right: string, limit: number): boolean {
  if (Math.abs(left.length - right.length) > limit) return false;
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= right.length; column += 1) {
      const substitution = previous[column - 1]! + (left[row - 1] === right[column - 1] ? 0 : 1);
      current.push(Math.min(previous[column]! + 1, current[column - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length]! <= limit;
}

/** The names a guard holds that it could mean as a hook: own keys, and a class's methods up its prototypes. */
function namesOf(guard: object): string[] {
  const names = new Set(Object.keys(guard));
  for (let proto = Object.getPrototypeOf(guard) as object | null; proto !== null && proto !== Object.prototype;) {
    for (const key of Object.getOwnPropertyNames(proto)) if (key !== "constructor") names.add(key);
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return [...names];
}

/**
 * Refuses a guard whose keys say it meant a hook it does not have: a misspelt hook (`beforetool`,
 * `before_tool`, `beforeTol`) would guard nothing. A plain object may hold only `name` and the hooks;
 * a class instance keeps its own state and helper methods, and only names within two edits of a hook
 * (ignoring case, `_` and `-`) are refused there, so guards written as classes still work.
 */
function checkGuardKeys(guard: object, name: string, index: number): void {
  const known = ["name", ...GUARD_POINTS];
  const prototype = Object.getPrototypeOf(guard) as unknown;
  if (prototype === Object.prototype || prototype === null) {
    checkOptionKeys(guard, known, `guards[${index}]`, { noun: "guard key" });
    return;
  }
  for (const key of namesOf(guard)) {
    if (known.includes(key)) continue;
    const meant = GUARD_POINTS.find((point) => near(normalized(key), normalized(point), 2));
    if (meant !== undefined) {
      throw new LeashError(
        "invalid_option",
        `Guard \`${name}\` (\`guards[${index}]\`) has \`${key.slice(0, 64)}\`, which is not a hook: did it mean \`${meant}\`? Known: ${known.join(", ")}.`,
        { details: { guard: name, key: key.slice(0, 64), known } },
      );
    }
  }
}
