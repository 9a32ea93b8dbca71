import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { bin } from "../cli/cli-helpers.js";
import { dropSchema, freshSchemaName, withPostgres } from "../postgres/database.js";
import { httpTransport, leash, runs, setup, textOf, withTokenFile } from "./support.js";

withPostgres("the gateway over Streamable HTTP on a PostgreSQL store", (url) => {
  test("over Streamable HTTP on 127.0.0.1 and a PostgreSQL store, a call is a run that leash runs and leash verify see", async () => {
    const at = await setup({ waitMs: 120_000 });
    await writeFile(path.join(at.files, "note.txt"), "over http");
    const schema = freshSchemaName("leash_gw");
    const db = ["--db", url, "--schema", schema];
    withTokenFile(at);
    const child = spawn(process.execPath, [bin, "mcp", "serve", "--config", at.config, "--http", "0", ...db], {
      cwd: at.dir,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = once(child, "exit");
    try {
      let stderr = "";
      const port = await new Promise<number>((resolve, reject) => {
        child.stderr.setEncoding("utf8");
        child.stderr.on("data", (chunk: string) => {
          stderr += chunk;
          const found = /http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
          if (found) resolve(Number(found[1]));
        });
        child.once("exit", () => reject(new Error(`The gateway ended: ${stderr}`)));
      });
      const client = new Client({ name: "gateway-test", version: "1" });
      await client.connect(httpTransport(port));
      try {
        const result = await client.callTool({
          name: "fs__read_text_file",
          arguments: { path: path.join(at.files, "note.txt") },
        });
        assert.match(textOf(result), /over http/);
      } finally {
        await client.close();
      }
      const listed = await runs(at, db);
      assert.deepEqual(
        listed.map((run) => run.status),
        ["completed"],
      );
      const verified = await leash(["verify", ...db], at.dir);
      assert.equal(verified.status, 0, verified.stdout + verified.stderr);
    } finally {
      child.kill("SIGTERM");
      await exited;
      await dropSchema(url, schema);
    }
  });
});
