// An --agent module in TypeScript loads whatever the type of the project it sits in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { errorLine, leash, root, tempFolder } from "./cli-helpers.js";
import { payAgent } from "./pay-agent.js";

const dist = (path: string): string => pathToFileURL(join(root, "dist", path)).href;

/** An app's agent module, in TypeScript with ES module syntax, agreeing with {@link payAgent}. */
const AGENT = `
import { Agent, Decision, Policy, tool } from ${JSON.stringify(dist("index.js"))};
import { SqliteStore } from ${JSON.stringify(dist("stores/sqlite/index.js"))};
const db: string = process.env.LEASH_DB ?? "leash.db";
export const store = new SqliteStore(db);
const pay = tool<{ amount: number }>({
  name: "pay",
  parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
  effect: "write",
  execute: ({ amount }) => \`paid \${amount}\`,
});
export const agent = new Agent({
  tools: [pay],
  planner: (state) => (state.steps.length === 0 ? Decision.act("pay", { amount: 10 }) : Decision.finish("done")),
  policy: new Policy({ allowEffects: ["read", "write"] }),
  store,
  audit: store,
});
`;

for (const [project, manifest] of [
  ["a CommonJS project (package.json without type)", '{ "name": "app" }'],
  ["a project with no package.json", undefined],
  ["an ES module project", '{ "name": "app", "type": "module" }'],
] as const) {
  for (const extension of [".ts", ".mts"]) {
    test(`resume loads an ${extension} agent module in ${project}`, async (t) => {
      const folder = tempFolder();
      t.after(folder.remove);
      if (manifest !== undefined) writeFileSync(join(folder.path, "package.json"), manifest);
      writeFileSync(join(folder.path, `agent${extension}`), AGENT);
      const db = join(folder.path, "app.db");
      const store = new SqliteStore(db);
      const paused = await payAgent(store).run("pay the invoice");
      await store.close();
      assert.equal(leash(["approve", paused.runId, "--as", "noor", "--db", db], { cwd: folder.path }).status, 0);
      const resume = leash(["resume", paused.runId, "--agent", `agent${extension}`, "--db", db], {
        cwd: folder.path,
        env: { NODE_OPTIONS: "" },
      });
      assert.equal(resume.status, 0, resume.stderr);
      assert.match(resume.stdout, /it is now completed/);
    });
  }
}

test("a .cts agent module that cannot load leash is refused with a clear error naming .ts and .mts", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  writeFileSync(join(folder.path, "agent.cts"), AGENT);
  const db = join(folder.path, "app.db");
  const store = new SqliteStore(db);
  const paused = await payAgent(store).run("pay the invoice");
  await store.close();
  const resume = leash(["resume", paused.runId, "--agent", "agent.cts", "--db", db], {
    cwd: folder.path,
    env: { NODE_OPTIONS: "" },
  });
  assert.equal(resume.status, 2, resume.stderr);
  const error = errorLine(resume);
  assert.equal(error.code, "agent_load_failed");
  assert.match(error.message, /\.mts/);
});
