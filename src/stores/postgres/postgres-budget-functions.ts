import { MAX_BUDGET_AMOUNT } from "../budget-info.js";
import { FUNCTION_STATES } from "./postgres-functions.js";
import type { PostgresTables } from "./postgres-tables.js";

/** A dollar-quote tag that does not occur in `body`, so that no schema name can end the body early. */
function dollarQuote(body: string): string {
  let tag = "leash";
  while (body.includes(`$${tag}$`)) tag += "_";
  return `$${tag}$${body}$${tag}$`;
}

/**
 * The tolerance of a money limit, as `budgetStop` in budget-info.ts has it (ten charges of 0.1 fill a
 * budget of 1). Written as a float8 literal, so that the comparison is the same IEEE arithmetic as
 * JavaScript's, not `numeric`'s.
 */
const MONEY_TOLERANCE = "1e-9::double precision";

/** The largest spend a budget keeps (`MAX_BUDGET_AMOUNT`), as the memory and SQLite stores cap it. */
const MAX_AMOUNT = `${MAX_BUDGET_AMOUNT}::double precision`;

/**
 * The plpgsql functions of shared budgets (schema version 7), `CREATE OR REPLACE` under the migration
 * lock:
 *
 * - `leash_charge_budget(key, cost, tokens, tool_calls, check)` takes one charge: it locks the
 *   budget's row (nothing for a key with no budget), and with check `tool` raises
 *   {@link FUNCTION_STATES}.budget, DETAIL the budget as JSON (`reason`, the limits, the spend), when
 *   the charge would take the calls past `max_tool_calls` or the spend past `max_cost`, exactly as
 *   `budgetStop` decides; else it adds the charge, the spend never below zero. The row lock makes two
 *   charges of one budget take turns, so the second checks the spend the first left.
 * - `leash_save_run_charged(...)` is `leash_save_run` (the compare-and-set, the steps, the records
 *   after the chain check) followed by the charge, in one statement: one round trip, and a raise of
 *   either rolls back both, so a refused charge writes nothing of its save. The charge comes last: a
 *   stale save is refused as stale (as the memory store does), and the budget's row is locked only
 *   for the instant before the commit, in the same order (run row, then budget row) by every save.
 */
export function budgetFunctionDefinitions(tables: PostgresTables, outbox = false): string {
  const { budgets } = tables;
  const charge = `
DECLARE
  budget record;
  reason text;
BEGIN
  SELECT * INTO budget FROM ${budgets} WHERE key = p_key FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF p_check = 'tool' THEN
    IF budget.max_tool_calls IS NOT NULL AND p_tool_calls > 0
      AND budget.spent_tool_calls + p_tool_calls > budget.max_tool_calls::double precision THEN
      reason := 'budget_tool_calls';
    ELSIF budget.max_cost IS NOT NULL AND p_cost > 0
      AND budget.spent_cost + p_cost > budget.max_cost + budget.max_cost * ${MONEY_TOLERANCE} THEN
      reason := 'budget_cost';
    END IF;
    IF reason IS NOT NULL THEN
      RAISE EXCEPTION 'the shared budget has no room for the call' USING ERRCODE = '${FUNCTION_STATES.budget}',
        DETAIL = json_build_object('reason', reason, 'key', budget.key, 'maxCost', budget.max_cost,
          'maxTokens', budget.max_tokens, 'maxToolCalls', budget.max_tool_calls, 'cost', budget.spent_cost,
          'tokens', budget.spent_tokens, 'toolCalls', budget.spent_tool_calls)::text;
    END IF;
  END IF;
  UPDATE ${budgets} SET spent_cost = least(${MAX_AMOUNT}, greatest(0, spent_cost + p_cost)),
    spent_tokens = least(${MAX_AMOUNT}, greatest(0, spent_tokens + p_tokens)),
    spent_tool_calls = least(${MAX_AMOUNT}, greatest(0, spent_tool_calls + p_tool_calls))
  WHERE key = p_key;
END
`;
  const saveCharged = `
DECLARE
  change bigint;
BEGIN
  change := ${tables.saveRun}(p_run_id, p_expected, p_revision, p_status, p_answer_count, p_state, p_step_count,
    p_full, p_indexes, p_steps, p_summary, p_updated_key, p_runs, p_seqs, p_records, p_digests, p_prevs${
      outbox ? ", p_events" : ""
    });
  PERFORM ${tables.chargeBudget}(p_key, p_cost, p_tokens, p_tool_calls, p_check);
  RETURN change;
END
`;
  const chargeParameters =
    "p_key text, p_cost double precision, p_tokens double precision, p_tool_calls double precision, p_check text";
  return `
CREATE OR REPLACE FUNCTION ${tables.chargeBudget}(${chargeParameters})
RETURNS void LANGUAGE plpgsql AS ${dollarQuote(charge)};
CREATE OR REPLACE FUNCTION ${tables.saveRunCharged}(
  p_run_id text, p_expected bigint, p_revision bigint, p_status text, p_answer_count integer, p_state text,
  p_step_count integer, p_full boolean, p_indexes integer[], p_steps text[], p_summary text, p_updated_key text,
  p_runs text[], p_seqs bigint[], p_records text[], p_digests text[], p_prevs text[], ${chargeParameters}${
    outbox ? ", p_events text" : ""
  })
RETURNS bigint LANGUAGE plpgsql AS ${dollarQuote(saveCharged)};
`;
}
