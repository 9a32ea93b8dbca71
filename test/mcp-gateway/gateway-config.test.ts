import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { checkGatewayConfig, readGatewayConfig } from "../../src/gateway/gateway-config.js";
import { isLeashError } from "../../src/index.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

test("the example config of the guide is a valid gateway config", () => {
  const config = readGatewayConfig(path.join(root, "examples", "mcp-gateway.json"));
  assert.deepEqual(
    config.servers.map((server) => server.name),
    ["fs", "memory"],
  );
  assert.deepEqual(config.policy.approvers, ["alice", "bob"]);
  assert.equal(config.waitMs, 50_000);
});

test("a config's defaults: least privilege, a 50 s wait (under an SDK Client's 60 s request timeout), 30 minutes for an idle HTTP session, trusted upstreams, ten seconds to finish calls at a stop, a relative cwd taken from the config's folder", () => {
  const config = checkGatewayConfig({ servers: { a: { command: "x", cwd: "sub" } } }, "c.json", "/etc/leash");
  assert.deepEqual(config.policy, { grantedScopes: [], allowEffects: ["read"] });
  assert.equal(config.waitMs, 50_000);
  assert.equal(config.sessionIdleMs, 30 * 60_000);
  assert.equal(config.servers[0]?.trust, undefined);
  const set = checkGatewayConfig(
    { servers: { a: { command: "x", trust: "untrusted" } }, http: { sessionIdleMs: 1000 } },
    "c.json",
    "/",
  );
  assert.equal(set.servers[0]?.trust, "untrusted");
  assert.equal(set.sessionIdleMs, 1000);
  assert.equal(config.shutdownMs, 10_000);
  assert.equal(
    checkGatewayConfig({ servers: { a: { command: "x" } }, shutdownMs: 2500 }, "c.json", "/").shutdownMs,
    2500,
  );
  assert.deepEqual(config.servers[0]?.source, { command: "x", cwd: path.resolve("/etc/leash", "sub") });
});

test("a config that says something wrong is refused with invalid_config, naming the field", () => {
  const bad: [unknown, RegExp][] = [
    [[], /the config must be an object/],
    [{ servers: {} }, /lists no server/],
    [{ servers: { "a b": { command: "x" } } }, /server name `a b`/],
    [{ servers: { a: { command: "x", url: "http://h" } } }, /either `command`/],
    [{ servers: { a: { url: "not a url" } } }, /servers\.a\.url must be a URL/],
    [{ servers: { a: { command: "x", args: [1] } } }, /servers\.a\.args must be an array/],
    [{ servers: { a: { command: "x", typo: 1 } } }, /unknown field `typo`/],
    [{ servers: { a: { command: "x" } }, policy: { allowEffects: ["delete"] } }, /policy\.allowEffects has `delete`/],
    [{ servers: { a: { command: "x" } }, limits: { maxSteps: -1 } }, /maxSteps/],
    [{ servers: { a: { command: "x" } }, approval: { waitMs: 0 } }, /approval\.waitMs must be a positive integer/],
    [{ servers: { a: { command: "x" } }, polcy: {} }, /unknown field `polcy`/],
    [{ servers: { a: { command: "x" } }, shutdownMs: 0 }, /shutdownMs must be a positive integer/],
    [{ servers: { a: { command: "x", trust: "yes" } } }, /servers\.a\.trust must be "trusted" or "untrusted"/],
    [
      { servers: { a: { command: "x" } }, http: { sessionIdleMs: 0 } },
      /http\.sessionIdleMs must be a positive integer/,
    ],
    [
      { servers: { a: { command: "x" } }, http: { sessionIdleMs: 2 ** 31 } },
      /http\.sessionIdleMs must be a positive integer up to/,
    ],
    [{ servers: { a: { command: "x" } }, shutdownMs: 1.5 }, /shutdownMs must be a positive integer/],
    [{ servers: { a: { command: "x" } }, shutdownMs: "10s" }, /shutdownMs must be a positive integer/],
    [{ servers: { a: { command: "x" } }, shutdownMs: 2 ** 31 }, /shutdownMs must be a positive integer up to/],
  ];
  for (const [value, message] of bad) {
    assert.throws(
      () => checkGatewayConfig(value, "c.json", "/"),
      (error: unknown) => {
        assert.ok(isLeashError(error, "invalid_config"), String(error));
        assert.match(error.message, message);
        return true;
      },
    );
  }
});
