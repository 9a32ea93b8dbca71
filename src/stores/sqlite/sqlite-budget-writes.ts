import type { Prepared, StoreReader as Reader, StoreWriter as Writer } from "./sqlite-prepared.js";
import { recordWriteOf } from "./sqlite-run-write.js";
import type { BudgetChangeOptions, BudgetCharge, BudgetInfo, BudgetLimits } from "../budget-info.js";
import type { BudgetLimitName } from "../budget-raise.js";
import { checkBudgetRaise, raisedBudget } from "../budget-raise.js";
import {
  budgetNotFound,
  budgetResetRecord,
  budgetRunId,
  budgetSetRecord,
  checkBudgetCharge,
  checkBudgetKey,
  checkBudgetLimits,
  checkChangeOptions,
} from "../budget-info.js";

/** The head of a budget's chain in the trail (null before its first record), read inside the write. */
function chainHead(prepared: Prepared, key: string): { seq: number; digest: string } | null {
  const last = prepared.trail.read(budgetRunId(key)).at(-1);
  return last === undefined ? null : { seq: last.seq, digest: last.digest };
}

/**
 * The shared budgets of a {@link SqliteStore}, written through its batches: a budget's row and its
 * record (`budget_set`, `budget_reset`) are one write, so neither is ever stored without the other,
 * and the row is read inside the write's transaction, so that a change keeps every spend committed
 * before it.
 */
export class SqliteBudgetWrites {
  readonly #read: Reader;
  readonly #write: Writer;

  constructor(read: Reader, write: Writer) {
    this.#read = read;
    this.#write = write;
  }

  async set(key: string, limits: BudgetLimits, options: BudgetChangeOptions | undefined): Promise<BudgetInfo> {
    let result: BudgetInfo | undefined;
    await this.#write({ method: "setBudget" }, () => {
      checkBudgetKey(key);
      const checked = checkBudgetLimits(limits);
      const change = checkChangeOptions(options, "setBudget");
      return {
        apply: (prepared) => {
          const spent = prepared.budgets.get(key)?.spent ?? { cost: 0, tokens: 0, toolCalls: 0 };
          const info: BudgetInfo = { key, ...checked, spent };
          const record = budgetSetRecord(info, change, chainHead(prepared, key), new Date().toISOString());
          prepared.budgets.put(info);
          prepared.trail.insert(recordWriteOf([record]));
          result = info;
        },
        committed: () => undefined,
      };
    });
    return result!;
  }

  /**
   * Raises one limit (see `RunStore.raiseBudget`): the row is read inside the write's apply, under
   * the batch's `BEGIN IMMEDIATE`, so no other change of the budget comes between the read and the
   * write. A limit not set, or at least `to` already, is left as it is, with no record.
   */
  async raise(
    key: string,
    limit: BudgetLimitName,
    to: number,
    options: BudgetChangeOptions | undefined,
  ): Promise<BudgetInfo | null> {
    let result: BudgetInfo | null = null;
    await this.#write({ method: "raiseBudget" }, () => {
      const raise = checkBudgetRaise(key, limit, to, options);
      return {
        apply: (prepared) => {
          const stored = prepared.budgets.get(raise.key);
          if (stored === undefined) {
            result = null;
            return;
          }
          const info = raisedBudget(stored, raise);
          if (info === undefined) {
            result = stored;
            return;
          }
          const record = budgetSetRecord(info, raise.change, chainHead(prepared, raise.key), new Date().toISOString());
          prepared.budgets.put(info);
          prepared.trail.insert(recordWriteOf([record]));
          result = info;
        },
        committed: () => undefined,
      };
    });
    return result;
  }

  async reset(key: string, options: BudgetChangeOptions | undefined): Promise<BudgetInfo> {
    let result: BudgetInfo | undefined;
    await this.#write({ method: "resetBudget" }, () => {
      checkBudgetKey(key);
      const change = checkChangeOptions(options, "resetBudget");
      return {
        apply: (prepared) => {
          const stored = prepared.budgets.get(key);
          if (stored === undefined) throw budgetNotFound(key);
          const record = budgetResetRecord(stored, change, chainHead(prepared, key)!, new Date().toISOString());
          const info: BudgetInfo = { ...stored, spent: { cost: 0, tokens: 0, toolCalls: 0 } };
          prepared.budgets.put(info);
          prepared.trail.insert(recordWriteOf([record]));
          result = info;
        },
        committed: () => undefined,
      };
    });
    return result!;
  }

  get(key: string): Promise<BudgetInfo | null> {
    return this.#read({ method: "budget" }, (prepared) => prepared.budgets.get(checkBudgetKey(key)) ?? null);
  }

  list(): Promise<BudgetInfo[]> {
    return this.#read({ method: "budgets" }, (prepared) => prepared.budgets.list());
  }

  charge(charge: BudgetCharge): Promise<void> {
    return this.#write({ method: "chargeBudget" }, () => {
      checkBudgetCharge(charge);
      const taken = { ...charge };
      return { apply: (prepared) => prepared.budgets.charge(taken), committed: () => undefined };
    });
  }
}
