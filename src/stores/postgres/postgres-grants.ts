import type { AuditRecord } from "../../audit/audit-record.js";
import { StateError } from "../../errors/index.js";
import type { GiveGrantOptions, GrantInfo, GrantOptions, GrantUse, GrantsOptions } from "../grant-info.js";
import type { RevokeGrantOptions } from "../grant-info.js";
import { grantNotFound, grantRevokedRecord, grantRunId, useRefusal, useRefused } from "../grant-options.js";
import { checkGiveOptions, checkGrantsOptions, checkRevoke, filterGrants } from "../grant-options.js";
import { grantGivenRecord, newGrant } from "../grant-options.js";
import { insertRecords } from "./postgres-audit-rows.js";
import { storeFailed } from "./postgres-errors.js";
import type { PostgresClient, PostgresPool } from "./postgres-pool.js";
import { inTransaction, queryOnce } from "./postgres-pool.js";
import type { PostgresTables } from "./postgres-tables.js";

/** A stored grant's row read back: its JSON parsed, its uses from their column. */
function grantOf(row: Record<string, unknown>): GrantInfo {
  let info: unknown;
  try {
    info = JSON.parse(String(row.info));
  } catch (error) {
    throw storeFailed(error, "reading a standing grant");
  }
  return { ...(info as GrantInfo), uses: Number(row.uses) };
}

function infoText(grant: GrantInfo): string {
  const { uses: _uses, ...info } = grant;
  return JSON.stringify(info);
}

function trailTaken(runId: string, error: unknown): StateError {
  return new StateError("stale_state", `Another writer extended the chain \`${runId}\` at the same place.`, {
    cause: error,
    details: { runId },
  });
}

/** Stores a new grant and its `grant_given` record in one transaction. */
export async function insertGrant(
  pool: PostgresPool,
  tables: PostgresTables,
  grant: GrantInfo,
  record: AuditRecord,
): Promise<void> {
  await inTransaction(pool, `giving standing grant \`${grant.id}\``, async (client) => {
    await client.query(`INSERT INTO ${tables.grants} (id, info, uses) VALUES ($1, $2, $3)`, [
      grant.id,
      infoText(grant),
      grant.uses,
    ]);
    await insertRecords(client, tables, [record], (error) => trailTaken(record.run, error));
  });
}

/**
 * Revokes a grant and records `grant_revoked` in one transaction, the row locked so that two revokes
 * record one revocation; a grant revoked already is given back as it is.
 */
export async function revokeStoredGrant(
  pool: PostgresPool,
  tables: PostgresTables,
  id: string,
  revoked: NonNullable<GrantInfo["revoked"]>,
): Promise<GrantInfo> {
  return inTransaction(pool, `revoking standing grant \`${id}\``, async (client) => {
    const found = await client.query(`SELECT info, uses FROM ${tables.grants} WHERE id = $1 FOR UPDATE`, [id]);
    const row = found.rows[0];
    if (row === undefined) throw grantNotFound(id);
    const stored = grantOf(row);
    if (stored.revoked !== undefined) return stored;
    const info = { ...stored, revoked };
    const runId = grantRunId(id);
    const head = await client.query(
      `SELECT seq, digest FROM ${tables.audit} WHERE run_id = $1 ORDER BY seq DESC LIMIT 1`,
      [runId],
    );
    const last = head.rows[0]!;
    await client.query(`UPDATE ${tables.grants} SET info = $1 WHERE id = $2`, [infoText(info), id]);
    const record = grantRevokedRecord(info, { seq: Number(last.seq), digest: String(last.digest) });
    await insertRecords(client, tables, [record], (error) => trailTaken(runId, error));
    return info;
  });
}

/** Every stored grant, oldest first. */
export async function selectGrants(pool: PostgresPool, tables: PostgresTables): Promise<GrantInfo[]> {
  const result = await queryOnce(
    pool,
    "listing the standing grants",
    `SELECT info, uses FROM ${tables.grants} ORDER BY position`,
  );
  return result.rows.map(grantOf);
}

/**
 * Takes one use inside the caller's transaction, the row locked until it commits: refused
 * (`stale_state`) unless the grant gives it, and then the caller's transaction rolls back.
 */
export async function takeUse(client: PostgresClient, tables: PostgresTables, use: GrantUse): Promise<void> {
  const found = await client.query(`SELECT info, uses, tool_digest FROM ${tables.grants} WHERE id = $1 FOR UPDATE`, [
    use.grant,
  ]);
  const row = found.rows[0];
  const pin = typeof row?.tool_digest === "string" ? row.tool_digest : null;
  const reason = useRefusal(row === undefined ? undefined : grantOf(row), pin, use);
  if (reason !== undefined) throw useRefused(use, reason);
  await client.query(`UPDATE ${tables.grants} SET uses = $1, tool_digest = COALESCE(tool_digest, $2) WHERE id = $3`, [
    use.use,
    use.toolDigest,
    use.grant,
  ]);
}

/** `store.grant` on PostgreSQL: checked whole, then stored with its record. */
export async function giveGrant(
  pool: PostgresPool,
  tables: PostgresTables,
  options: GrantOptions,
  give: GiveGrantOptions | undefined,
): Promise<GrantInfo> {
  const origin = checkGiveOptions(give);
  const info = newGrant(options, new Date());
  await insertGrant(pool, tables, info, grantGivenRecord(info, origin));
  return info;
}

/** `store.revokeGrant` on PostgreSQL. */
export function revokeGrant(
  pool: PostgresPool,
  tables: PostgresTables,
  id: string,
  options: RevokeGrantOptions,
): Promise<GrantInfo> {
  return revokeStoredGrant(pool, tables, id, checkRevoke(id, options, new Date()));
}

/** `store.grants` on PostgreSQL. */
export async function listGrants(
  pool: PostgresPool,
  tables: PostgresTables,
  options: GrantsOptions | undefined,
): Promise<GrantInfo[]> {
  const checked = checkGrantsOptions(options);
  return filterGrants(await selectGrants(pool, tables), checked, new Date());
}

/** `store.takeGrantUse` on PostgreSQL: one use in a transaction of its own. */
export async function takeGrantUse(pool: PostgresPool, tables: PostgresTables, use: GrantUse): Promise<void> {
  await inTransaction(pool, `taking a use of grant \`${use.grant}\``, (client) => takeUse(client, tables, use));
}
