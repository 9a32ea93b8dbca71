import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { hostname } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { openGatewayClaims, pidNamespace } from "../../src/gateway/gateway-claims.js";
import type { DriverRow, GatewayClaims } from "../../src/gateway/gateway-claims.js";
import { tempFolder } from "../mcp/support.js";
import { dropSchema, freshSchemaName, sql, withPostgres } from "../postgres/database.js";
import type { StoreLocation } from "../../src/operate/store-location.js";

/** The pid of a process that has ended (a child that ran and exited). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid!;
}

function driver(name: string, pid: number, pidns = pidNamespace(), host = hostname()): DriverRow {
  return { driver: name, host, pidns, pid };
}

/** The claims rules, on one store location. */
function claimsRules(where: string, location: () => Promise<StoreLocation>): void {
  test(`${where}: a claim is taken by compare-and-set; a live driver keeps it; released, it is free`, async () => {
    const at = await location();
    const first = await openGatewayClaims(at, { me: driver("first", process.pid) });
    const second = await openGatewayClaims(at, { me: driver("second", process.pid) });
    try {
      await first.start();
      await second.start();
      assert.equal(await first.claim("run-1"), true);
      assert.equal(await first.claim("run-1"), true);
      // The holder beats and its pid lives: nobody takes the run from it, recovery neither.
      assert.equal(await second.claim("run-1"), false);
      assert.equal(await second.takeOver("run-1", () => true), false);
      // Recovery never takes a run this process drives itself.
      assert.equal(await first.takeOver("run-1", () => true), false);
      await first.release("run-1");
      assert.equal(await second.claim("run-1"), true);
      // A run without a claim (an older gateway's) is taken only when the older rule says so.
      assert.equal(await second.takeOver("run-2", () => false), false);
      assert.equal(await second.takeOver("run-2", () => true), true);
    } finally {
      await first.close(true);
      await second.close(true);
    }
  });

  test(`${where}: a driver on this host and pid namespace whose pid is gone loses its claim at once; in another pid namespace it keeps it until its heartbeat is old`, async () => {
    const at = await location();
    const gone = await deadPid();
    const dead = await openGatewayClaims(at, { me: driver("dead", gone) });
    const elsewhere = await openGatewayClaims(at, { me: driver("elsewhere", gone, "pid:[1]") });
    const me = await openGatewayClaims(at, { me: driver("me", process.pid), ttlMs: 60_000 });
    try {
      await dead.start(60_000);
      await elsewhere.start(60_000);
      assert.equal(await dead.claim("run-a"), true);
      assert.equal(await elsewhere.claim("run-b"), true);
      assert.equal(await me.takeOver("run-a", () => false), true);
      // Same host name, another pid namespace (a container): its pid says nothing here.
      assert.equal(await me.takeOver("run-b", () => true), false);
    } finally {
      await dead.close(false);
      await elsewhere.close(false);
      await me.close(true);
    }
    // Past the TTL, a heartbeat that stopped is proof enough: the claim moves.
    const strict = await openGatewayClaims(at, { me: driver("strict", process.pid), ttlMs: 0 });
    try {
      const end = Date.now() + 60_000;
      let taken = false;
      while (!taken && Date.now() < end) taken = await strict.takeOver("run-b", () => false);
      assert.equal(taken, true);
    } finally {
      await strict.close(true);
    }
  });

  test(`${where}: two gateways that recover one cut run at once: exactly one wins it`, async () => {
    const at = await location();
    const gone = await deadPid();
    const dead = await openGatewayClaims(at, { me: driver("cut", gone) });
    await dead.start(60_000);
    for (let run = 0; run < 20; run += 1) assert.equal(await dead.claim(`cut-${run}`), true);
    await dead.close(false);
    const racers: GatewayClaims[] = await Promise.all(
      ["one", "two", "three"].map((name) => openGatewayClaims(at, { me: driver(name, process.pid) })),
    );
    try {
      // Each beats, as a gateway does from its start: a claim whose driver has no row is a stopped one's.
      for (const racer of racers) await racer.start(60_000);
      for (let run = 0; run < 20; run += 1) {
        const won = await Promise.all(racers.map((racer) => racer.takeOver(`cut-${run}`, () => true)));
        assert.equal(won.filter(Boolean).length, 1, `run ${run}: ${won.join(", ")}`);
      }
    } finally {
      for (const racer of racers) await racer.close(true);
    }
  });
}

claimsRules("SQLite", async () => {
  const db = path.join(await tempFolder(), "runs.db");
  return { kind: "sqlite", db, label: db, args: `--db ${db}` };
});

withPostgres("gateway claims on PostgreSQL", (url) => {
  const schemas: string[] = [];
  claimsRules("PostgreSQL", async () => {
    const schema = freshSchemaName("leash_claims");
    schemas.push(schema);
    await sql(url, `CREATE SCHEMA ${schema}`);
    return { kind: "postgres", db: url, schema, label: schema, args: "" };
  });
  test.after(async () => {
    for (const schema of schemas) await dropSchema(url, schema);
  });
});
