// The inbox behind a proxy at a public address (`leash serve --base https://…`): a link made for that
// address answers when the request arrives with the public Host and Origin, and any other Host or Origin
// is still refused.
import assert from "node:assert/strict";
import { request } from "node:http";
import { leash } from "../cli/cli-helpers.js";
import { eachStore } from "../cli/cli-stores.js";
import { addApprover, answersOf, pausedRun, serve } from "./serve-helpers.js";
import type { Served } from "./serve-helpers.js";

const PUBLIC = "https://inbox.example";

/** A POST of a link's form to the listening port, with the headers a proxy passes on. */
function post(served: Served, path: string, headers: Record<string, string>, body: string): Promise<number> {
  const { hostname, port } = new URL(served.url);
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        hostname,
        port,
        path,
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "content-length": Buffer.byteLength(body),
          ...headers,
        },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

eachStore(
  "behind a proxy at the --base address, a link's form answers with the public Host and Origin; another Host or Origin is refused",
  async (t, target) => {
    const run = await pausedRun(target);
    await addApprover(target, "noor");
    const served = await serve(t, target, ["--base", PUBLIC]);
    const made = leash(["link", run.runId, "--as", "noor", "--base", PUBLIC, "--json", ...target.args], {
      cwd: target.cwd,
    });
    assert.equal(made.status, 0, made.stderr);
    const { url } = JSON.parse(made.stdout) as { url: string };
    assert.ok(url.startsWith(`${PUBLIC}/link/`), url);
    const path = new URL(url).pathname;
    const body = "decision=approve";
    const browser = { "sec-fetch-site": "same-origin" };

    assert.equal(await post(served, path, { host: "elsewhere.example", origin: PUBLIC, ...browser }, body), 421);
    assert.equal(
      await post(served, path, { host: "inbox.example", origin: "https://evil.example", ...browser }, body),
      403,
    );
    assert.deepEqual(await answersOf(target, run.runId), [], "nothing recorded by the refused posts");

    assert.equal(await post(served, path, { host: "inbox.example", origin: PUBLIC, ...browser }, body), 200);
    const answers = await answersOf(target, run.runId);
    assert.equal(answers.length, 1);
    assert.equal(answers[0]?.approver, "noor");
    assert.equal(answers[0]?.origin?.via, "link");
  },
);
