import { randomUUID } from "node:crypto";
import { readlinkSync } from "node:fs";
import { hostname } from "node:os";
import type { StoreLocation } from "../operate/store-location.js";
import type { GatewayApproval } from "./gateway-approvers.js";

/** How often a gateway process renews its heartbeat, in milliseconds. */
const BEAT_MS = 2_000;
/** How old a heartbeat may be before its gateway counts as gone: three missed beats. */
const TTL_MS = 3 * BEAT_MS;

/** A gateway process as the drivers' table keeps it. */
export interface DriverRow {
  driver: string;
  host: string;
  /** The process's pid namespace (`/proc/self/ns/pid`), or "" where it cannot be read. */
  pidns: string;
  pid: number;
}

/** Who holds a run's claim: the driver, its row (absent once it stopped), and its heartbeat's age. */
export interface Holder {
  driver: string;
  row?: DriverRow;
  ageMs?: number;
}

/** The SQL a claims table needs: one implementation per database (SQLite, PostgreSQL). */
export interface ClaimsBackend {
  /** Writes this driver's row with a fresh heartbeat. */
  beat(row: DriverRow): Promise<void>;
  /** Removes a driver's row (it stopped, holding no claim). */
  forget(driver: string): Promise<void>;
  /** Inserts a claim if the run has none; whether it did. */
  insert(runId: string, driver: string): Promise<boolean>;
  /** Who holds the run's claim, if anyone. */
  holder(runId: string): Promise<Holder | undefined>;
  /** Moves the claim from `from` to `to`, only if `from` still holds it (compare-and-set); whether it did. */
  swap(runId: string, from: string, to: string): Promise<boolean>;
  /** Deletes the claim if `driver` holds it. */
  release(runId: string, driver: string): Promise<void>;
  /** Keeps who may approve a run (JSON of a `GatewayApproval`), once: the first record of a run stands. */
  recordApproval(runId: string, json: string): Promise<void>;
  close(): Promise<void>;
}

/** This process's pid namespace, or "" where `/proc/self/ns/pid` cannot be read. */
export function pidNamespace(): string {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return "";
  }
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Which gateway process drives which run, kept in the store's database beside the runs: a gateway
 * claims a run (compare-and-set) before it runs or resumes it and releases the claim once the run ends
 * or waits for a person; every gateway renews a heartbeat while alive. A claim is taken from another
 * driver only when that driver is provably gone: its heartbeat is older than {@link TTL_MS}, it
 * stopped (its row is gone), or it ran on this host, in this pid namespace, and its pid is gone.
 */
export class GatewayClaims {
  readonly me: DriverRow;
  readonly #backend: ClaimsBackend;
  readonly #ttlMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(backend: ClaimsBackend, options: { ttlMs?: number; me?: DriverRow } = {}) {
    this.#backend = backend;
    this.#ttlMs = options.ttlMs ?? TTL_MS;
    const pidns = pidNamespace();
    this.me = options.me ?? {
      driver: `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`,
      host: hostname(),
      pidns,
      pid: process.pid,
    };
  }

  /** Writes the first heartbeat, then renews it every `beatMs` until {@link close}. */
  async start(beatMs: number = BEAT_MS): Promise<void> {
    await this.#backend.beat(this.me);
    this.#timer = setInterval(() => void this.#backend.beat(this.me).catch(() => undefined), beatMs);
    this.#timer.unref();
  }

  /** Whether the holder of a claim is provably gone. */
  gone(holder: Holder): boolean {
    if (holder.driver === this.me.driver) return false;
    const row = holder.row;
    if (row === undefined) return true;
    if (holder.ageMs !== undefined && holder.ageMs > this.#ttlMs) return true;
    return row.host === this.me.host && row.pidns === this.me.pidns && processGone(row.pid);
  }

  /**
   * Claims a run for this process: true when it had no claim, this process held it, or its holder is
   * provably gone and this process won it. A run without a claim (one of an older gateway) is claimed
   * only when `unclaimedMayBeTaken` says so.
   */
  async claim(runId: string, unclaimedMayBeTaken: () => boolean = () => true): Promise<boolean> {
    const holder = await this.#backend.holder(runId);
    if (holder === undefined) return unclaimedMayBeTaken() && (await this.#backend.insert(runId, this.me.driver));
    if (holder.driver === this.me.driver) return true;
    if (!this.gone(holder)) return false;
    return this.#backend.swap(runId, holder.driver, this.me.driver);
  }

  /**
   * Recovery's claim of a `running` run: like {@link claim}, but never a run this process drives
   * already (a call of its own is running it).
   */
  async takeOver(runId: string, unclaimedMayBeTaken: () => boolean): Promise<boolean> {
    const holder = await this.#backend.holder(runId);
    if (holder?.driver === this.me.driver) return false;
    return this.claim(runId, unclaimedMayBeTaken);
  }

  /** Releases this process's claim of a run (it ended, or waits for a person). */
  release(runId: string): Promise<void> {
    return this.#backend.release(runId, this.me.driver).catch(() => undefined);
  }

  /**
   * Keeps, beside the run, who may approve it (the config's `policy.approvers`, and whether an answer
   * given at the client counts): `leash approve` reads it to say at once that an answer will not count.
   */
  recordApproval(runId: string, approval: GatewayApproval): Promise<void> {
    return this.#backend.recordApproval(runId, JSON.stringify(approval));
  }

  /** Stops the heartbeat; `forget` (a stop with no run in flight) removes this driver's row too. */
  async close(forget: boolean): Promise<void> {
    clearInterval(this.#timer);
    if (forget) await this.#backend.forget(this.me.driver).catch(() => undefined);
    await this.#backend.close();
  }
}

/** Opens the claims kept beside the runs of the gateway's store, creating their tables the first time. */
export async function openGatewayClaims(
  location: StoreLocation,
  options: { ttlMs?: number; me?: DriverRow } = {},
): Promise<GatewayClaims> {
  if (location.kind === "sqlite") {
    const { sqliteClaims } = await import("./sqlite-claims.js");
    return new GatewayClaims(sqliteClaims(location.db), options);
  }
  const { postgresClaims } = await import("./postgres-claims.js");
  return new GatewayClaims(await postgresClaims(location.db, location.schema), options);
}
