import type { StoreReader as Reader, StoreWriter as Writer } from "./sqlite-prepared.js";
import { recordWriteOf } from "./sqlite-run-write.js";
import type {
  GiveGrantOptions,
  GrantInfo,
  GrantOptions,
  GrantUse,
  GrantsOptions,
  RevokeGrantOptions,
} from "../grant-info.js";
import {
  checkGiveOptions,
  checkGrantsOptions,
  checkRevoke,
  filterGrants,
  grantGivenRecord,
  grantNotFound,
  grantRevokedRecord,
  grantRunId,
  newGrant,
} from "../grant-options.js";

/**
 * The standing grants of a {@link SqliteStore}, written through its batches: a grant and its record
 * (`grant_given`, `grant_revoked`) are one write, so neither is ever stored without the other.
 */
export class SqliteGrantWrites {
  readonly #read: Reader;
  readonly #write: Writer;

  constructor(read: Reader, write: Writer) {
    this.#read = read;
    this.#write = write;
  }

  async give(options: GrantOptions, give: GiveGrantOptions | undefined): Promise<GrantInfo> {
    let info: GrantInfo | undefined;
    await this.#write({ method: "grant" }, () => {
      const origin = checkGiveOptions(give);
      const made = newGrant(options, new Date());
      info = made;
      const records = recordWriteOf([grantGivenRecord(made, origin)]);
      return {
        apply: (prepared) => {
          prepared.grants.insert(made);
          prepared.trail.insert(records);
        },
        committed: () => undefined,
      };
    });
    return structuredClone(info!);
  }

  async revoke(id: string, options: RevokeGrantOptions): Promise<GrantInfo> {
    let result: GrantInfo | undefined;
    await this.#write({ method: "revokeGrant" }, () => {
      const revoked = checkRevoke(id, options, new Date());
      return {
        // Read inside the write's transaction, so two revokes of one grant record one revocation.
        apply: (prepared) => {
          const stored = prepared.grants.get(id);
          if (stored === undefined) throw grantNotFound(id);
          if (stored.revoked !== undefined) {
            result = stored;
            return;
          }
          const info = { ...stored, revoked };
          const last = prepared.trail.read(grantRunId(id)).at(-1)!;
          prepared.grants.revoke(info);
          prepared.trail.insert(recordWriteOf([grantRevokedRecord(info, { seq: last.seq, digest: last.digest })]));
          result = info;
        },
        committed: () => undefined,
      };
    });
    return result!;
  }

  list(options: GrantsOptions | undefined): Promise<GrantInfo[]> {
    return this.#read({ method: "grants" }, (prepared) =>
      filterGrants(prepared.grants.list(), checkGrantsOptions(options), new Date()),
    );
  }

  take(use: GrantUse): Promise<void> {
    return this.#write({ method: "takeGrantUse", compareAndSet: true }, () => ({
      apply: (prepared) => prepared.grants.take(use),
      committed: () => undefined,
    }));
  }
}
