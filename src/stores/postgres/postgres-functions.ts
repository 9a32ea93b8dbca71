import type { PostgresTables } from "./postgres-tables.js";
import { quoteLiteral } from "./postgres-tables.js";

/**
 * The first key of the advisory lock that fences the change sequence ("lchg" in ASCII); the second
 * is a hash of the schema name. Every create, save and answer holds it shared from the moment it
 * takes a change number until it commits; `changeSequence()` takes it exclusively for an instant,
 * so the value it reads has no change at or below it still uncommitted.
 */
export const CHANGE_LOCK = 0x6c636867;

/** How long `leash_change_sequence()` waits for the fence before it gives up and is asked again. */
const CHANGE_FENCE_WAIT_MS = 20;

/**
 * The SQLSTATEs the store's functions raise (class `LX`, which PostgreSQL never uses), each read
 * back by `postgres-save.ts` into the refusal it stands for. A raise rolls back the whole statement,
 * so a refused save or create has written nothing.
 */
export const FUNCTION_STATES = {
  /** The stored revision is not the expected one; DETAIL holds the stored revision. */
  stale: "LXS01",
  /** No run with that id. */
  notFound: "LXN01",
  /** The run id is taken, in the runs or in the trail. */
  exists: "LXE01",
  /** The records do not plainly continue the stored chain: the caller checks them in full instead. */
  checkChain: "LXC01",
  /**
   * A charge with check `tool` the shared budget has no room for (`leash_charge_budget`); DETAIL holds
   * the budget as JSON (the reason, the limits, the spend), read back into `limit_reached`.
   */
  budget: "LXB01",
} as const;

/** A dollar-quote tag that does not occur in `body`, so that no schema name can end the body early. */
function dollarQuote(body: string): string {
  let tag = "leash";
  while (body.includes(`$${tag}$`)) tag += "_";
  return `$${tag}$${body}$${tag}$`;
}

/** The record parameters every writing function takes, in this order, as parallel arrays. */
const RECORD_PARAMETERS = "p_runs text[], p_seqs bigint[], p_records text[], p_digests text[], p_prevs text[]";

/**
 * The plpgsql functions that make one create, save or answer one statement: one round trip that holds
 * its connection only while it runs. Created with the tables of schema version 5, under the
 * migration lock, so several processes opening the schema at once create them once. Each is
 * `CREATE OR REPLACE`, so a later migration may replace a body without dropping what uses it.
 */
export function functionDefinitions(tables: PostgresTables, outbox = false): string {
  const { runs, steps, audit } = tables;
  // From schema version 8 (`outbox`), a create and a save take the events they make true, as JSON
  // text (`p_events`, NULL for none), and insert them in the same statement (see `postgres-outbox.ts`).
  const eventsParameter = outbox ? ", p_events text" : "";
  const addEvents = outbox
    ? `IF p_events IS NOT NULL THEN
    PERFORM ${tables.addEvents}(p_run_id, p_events);
  END IF;`
    : "";
  const fence = `PERFORM pg_advisory_xact_lock_shared(${CHANGE_LOCK}, hashtext(${quoteLiteral(tables.schema)}));
  change := nextval(${quoteLiteral(tables.changes)}::regclass);`;
  const writeSteps = `INSERT INTO ${steps} (run_id, step_index, step)
  SELECT p_run_id, batch.step_index, batch.step FROM unnest(p_indexes, p_steps) AS batch (step_index, step)
  ON CONFLICT (run_id, step_index) DO UPDATE SET step = excluded.step;`;
  // The chain check reads each run's head through the primary key, after the run row is locked (a
  // save) or inserted (a create). Only the first record of each run in the batch is compared with
  // the head; the caller has checked the links inside the batch. Anything unusual (a head without a
  // digest column, a gap, a wrong link) is raised for the caller to check in full, in a transaction,
  // with the exact refusal (`stale_state` or `audit_corrupt`). Two writers at the same seq both pass
  // this check; the key on (run_id, seq) then refuses the second (unique_violation).
  const append = `
  IF coalesce(array_length(p_runs, 1), 0) = 0 THEN RETURN; END IF;
  IF EXISTS (
    SELECT 1 FROM (
      SELECT DISTINCT ON (batch.run_id) batch.run_id, batch.seq, batch.prev
      FROM unnest(p_runs, p_seqs, p_prevs) WITH ORDINALITY AS batch (run_id, seq, prev, ordinal)
      ORDER BY batch.run_id, batch.ordinal
    ) AS first
    LEFT JOIN LATERAL (
      SELECT stored.seq, stored.digest FROM ${audit} AS stored
      WHERE stored.run_id = first.run_id ORDER BY stored.seq DESC LIMIT 1
    ) AS head ON true
    WHERE CASE WHEN head.seq IS NULL THEN first.seq <> 0 OR first.prev IS NOT NULL
          ELSE head.digest IS NULL OR first.seq <> head.seq + 1 OR first.prev IS DISTINCT FROM head.digest END
  ) THEN
    RAISE EXCEPTION 'the records do not plainly continue the stored chain' USING ERRCODE = '${FUNCTION_STATES.checkChain}';
  END IF;
  INSERT INTO ${audit} (run_id, seq, record, digest)
  SELECT batch.run_id, batch.seq, batch.record, batch.digest
  FROM unnest(p_runs, p_seqs, p_records, p_digests) WITH ORDINALITY AS batch (run_id, seq, record, digest, ordinal)
  ORDER BY batch.ordinal;
`;
  const save = `
DECLARE
  change bigint;
  stored bigint;
BEGIN
  ${fence}
  UPDATE ${runs} SET revision = p_revision, status = p_status, answer_count = p_answer_count, state = p_state,
    updated_at = clock_timestamp(), summary = p_summary, updated_key = p_updated_key, change_number = change
  WHERE run_id = p_run_id AND revision = p_expected;
  IF NOT FOUND THEN
    SELECT revision INTO stored FROM ${runs} WHERE run_id = p_run_id;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'no such run' USING ERRCODE = '${FUNCTION_STATES.notFound}';
    END IF;
    RAISE EXCEPTION 'the run is at another revision' USING ERRCODE = '${FUNCTION_STATES.stale}', DETAIL = stored::text;
  END IF;
  ${writeSteps}
  IF p_full THEN
    DELETE FROM ${steps} WHERE run_id = p_run_id AND step_index >= p_step_count;
  END IF;
  PERFORM ${tables.appendRecords}(p_runs, p_seqs, p_records, p_digests, p_prevs);
  ${addEvents}
  RETURN change;
END
`;
  const create = `
DECLARE
  change bigint;
BEGIN
  ${fence}
  INSERT INTO ${runs} (run_id, status, revision, answer_count, state, summary, updated_key, change_number)
  VALUES (p_run_id, p_status, p_revision, p_answer_count, p_state, p_summary, p_updated_key, change)
  ON CONFLICT (run_id) DO NOTHING;
  IF NOT FOUND OR EXISTS (SELECT 1 FROM ${audit} WHERE run_id = p_run_id) THEN
    RAISE EXCEPTION 'the run id is taken' USING ERRCODE = '${FUNCTION_STATES.exists}';
  END IF;
  DELETE FROM ${steps} WHERE run_id = p_run_id AND step_index >= p_step_count;
  ${writeSteps}
  PERFORM ${tables.appendRecords}(p_runs, p_seqs, p_records, p_digests, p_prevs);
  ${addEvents}
  RETURN change;
END
`;
  // The exclusive wait is kept short: while it waits, new saves queue behind it, so a save stuck on
  // a row lock must not stall every writer of the schema. NULL says "try again in a moment".
  const changeSequence = `
DECLARE
  last bigint;
  called boolean;
BEGIN
  PERFORM set_config('lock_timeout', '${CHANGE_FENCE_WAIT_MS}ms', true);
  BEGIN
    PERFORM pg_advisory_xact_lock(${CHANGE_LOCK}, hashtext(${quoteLiteral(tables.schema)}));
  EXCEPTION WHEN lock_not_available THEN
    RETURN NULL;
  END;
  SELECT last_value, is_called INTO last, called FROM ${tables.changes};
  RETURN CASE WHEN called THEN last ELSE 0 END;
END
`;
  // Many saves of one process in one round trip (group commit): each in a block of its own (a
  // subtransaction), so that one save's refusal rolls back that save alone and is reported in its
  // row, while the others commit together. The saves come as one jsonb array; the texts in it are
  // JSON already, so they hold no NUL for jsonb to refuse (the caller sends a save whose plain fields
  // could hold one on its own, through leash_save_run).
  const element = (field: string, type = "text") =>
    `ARRAY(SELECT element::${type} FROM jsonb_array_elements_text(item->'${field}') WITH ORDINALITY AS list (element, place) ORDER BY place)`;
  const saveMany = `
DECLARE
  item jsonb;
BEGIN
  save_index := 0;
  FOR item IN SELECT value FROM jsonb_array_elements(p_saves) LOOP
    save_index := save_index + 1;
    save_change := NULL;
    save_state := NULL;
    save_detail := NULL;
    BEGIN
      save_change := ${tables.saveRun}(item->>'runId', (item->>'expected')::bigint, (item->>'revision')::bigint,
        item->>'status', (item->>'answers')::integer, item->>'header', (item->>'steps')::integer, (item->>'full')::boolean,
        ${element("indexes", "integer")}, ${element("texts")}, item->>'summary', item->>'updatedKey',
        ${element("runs")}, ${element("seqs", "bigint")}, ${element("records")}, ${element("digests")}, ${element("prevs")}${
          outbox ? ", item->>'events'" : ""
        });
    EXCEPTION WHEN OTHERS THEN
      GET STACKED DIAGNOSTICS save_state = RETURNED_SQLSTATE, save_detail = PG_EXCEPTION_DETAIL;
    END;
    RETURN NEXT;
  END LOOP;
END
`;
  return `
CREATE OR REPLACE FUNCTION ${tables.appendRecords}(${RECORD_PARAMETERS})
RETURNS void LANGUAGE plpgsql AS ${dollarQuote(`BEGIN${append}END`)};
CREATE OR REPLACE FUNCTION ${tables.saveRun}(
  p_run_id text, p_expected bigint, p_revision bigint, p_status text, p_answer_count integer, p_state text,
  p_step_count integer, p_full boolean, p_indexes integer[], p_steps text[], p_summary text, p_updated_key text,
  ${RECORD_PARAMETERS}${eventsParameter})
RETURNS bigint LANGUAGE plpgsql AS ${dollarQuote(save)};
CREATE OR REPLACE FUNCTION ${tables.createRun}(
  p_run_id text, p_revision bigint, p_status text, p_answer_count integer, p_state text,
  p_step_count integer, p_indexes integer[], p_steps text[], p_summary text, p_updated_key text,
  ${RECORD_PARAMETERS}${eventsParameter})
RETURNS bigint LANGUAGE plpgsql AS ${dollarQuote(create)};
CREATE OR REPLACE FUNCTION ${tables.saveRuns}(p_saves jsonb)
RETURNS TABLE (save_index integer, save_change bigint, save_state text, save_detail text)
LANGUAGE plpgsql AS ${dollarQuote(saveMany)};
CREATE OR REPLACE FUNCTION ${tables.changeSequence}()
RETURNS bigint LANGUAGE plpgsql AS ${dollarQuote(changeSequence)};
`;
}
