import assert from "node:assert/strict";
import { test } from "node:test";
import { checkGatewayConfig } from "../../src/gateway/gateway-config.js";

const servers = { a: { command: "x" } };

test("approval.elicitationApproves, approval.inbox and http.tokenFile/client are read, with safe defaults", () => {
  const plain = checkGatewayConfig({ servers }, "c.json", "/base");
  assert.equal(plain.elicitationApproves, false);
  assert.equal(plain.inbox, undefined);
  assert.equal(plain.httpAuth, undefined);
  const full = checkGatewayConfig(
    {
      servers,
      approval: { elicitAs: "desk", elicitationApproves: true, inbox: "https://inbox.example/leash" },
      http: { tokenFile: "secret/token", client: "ide-1" },
    },
    "c.json",
    "/base",
  );
  assert.equal(full.elicitationApproves, true);
  assert.equal(full.inbox, "https://inbox.example/leash");
  assert.deepEqual(full.httpAuth, { tokenFile: "/base/secret/token", client: "ide-1" });
  assert.equal(
    checkGatewayConfig({ servers, http: { tokenFile: "/t" } }, "c.json", "/base").httpAuth?.client,
    "token-file",
  );
});

test("bad approval and credential options are invalid_config naming the field", () => {
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ approval: { elicitationApproves: "yes" } }, /approval\.elicitationApproves/],
    [{ approval: { elicitationApproves: 1 } }, /approval\.elicitationApproves/],
    [{ approval: { inbox: "not a url" } }, /approval\.inbox/],
    [{ approval: { inbox: "javascript:alert(1)" } }, /approval\.inbox/],
    [{ approval: { inbox: 8377 } }, /approval\.inbox/],
    [{ http: { tokenFile: "" } }, /http\.tokenFile/],
    [{ http: { tokenFile: 3 } }, /http\.tokenFile/],
    [{ http: { client: "ide" } }, /http\.client/],
    [{ http: { tokenFile: "/t", client: "a b\nc" } }, /http\.client/],
    [{ http: { tokenFile: "/t", client: "" } }, /http\.client/],
  ];
  for (const [rest, named] of bad)
    assert.throws(
      () => checkGatewayConfig({ servers, ...rest }, "c.json", "/base"),
      (error: Error & { code?: string }) => error.code === "invalid_config" && named.test(error.message),
      JSON.stringify(rest),
    );
});
