import type { ErrorCode } from "./error-codes.js";
import { LeashError } from "./leash-error.js";

/** How {@link checkOptionKeys} refuses: the code, and the word for what the keys are ("option", "limit", ...). */
export interface OptionKeysRefusal {
  /** Default `"invalid_option"`; a tool spec's keys are refused as `"invalid_tool"`. */
  code?: ErrorCode;
  /** Default `"option"`. */
  noun?: string;
}

// A key is shown as it is when it is a plain name, else quoted, so that a hostile key cannot draw text.
const shown = (key: string): string => (/^[A-Za-z_$][\w$-]{0,63}$/.test(key) ? key : JSON.stringify(key.slice(0, 64)));

/**
 * Refuses an options object with a key that is not one of `known`, so that a typo (`polcy`,
 * `grantScopes`, `scope`) never silently falls back to a default: ``Unknown option `polcy` in `new
 * Agent(options)`; known: tools, planner, ...``. `undefined` passes (no options given); anything that
 * is not a plain object (null, an array, a string) is refused too. Only own enumerable keys are read:
 * what an object inherits (a class's methods) is not an option given.
 *
 * @example
 * checkOptionKeys(options, ["grantedScopes", "allowEffects"], "new Policy(options)");
 */
export function checkOptionKeys(
  value: unknown,
  known: readonly string[],
  where: string,
  refusal: OptionKeysRefusal = {},
): void {
  const code = refusal.code ?? "invalid_option";
  const noun = refusal.noun ?? "option";
  if (value === undefined) return;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new LeashError(code, `Expected \`${where}\` to be an object.`);
  }
  let keys: string[];
  try {
    keys = Object.keys(value);
  } catch (error) {
    // A Proxy whose `ownKeys` trap throws: refused as unreadable, never let through unchecked.
    throw new LeashError(code, `Expected \`${where}\` to be readable, but listing its keys threw.`, { cause: error });
  }
  for (const key of keys) {
    if (!known.includes(key)) {
      throw new LeashError(code, `Unknown ${noun} \`${shown(key)}\` in \`${where}\`; known: ${known.join(", ")}.`, {
        details: { key: key.slice(0, 64), known: [...known] },
      });
    }
  }
}
