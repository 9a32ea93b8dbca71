// examples/otel.ts runs as a user runs it (tsx, importing the built `leash`) and prints every span.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

test("the OpenTelemetry example prints a run's spans with the console exporter, each naming its record", () => {
  const output = execFileSync(process.execPath, ["--import", "tsx", "examples/otel.ts"], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  const names = [...output.matchAll(/^ {2}name: '([^']+)'/gm)].map((match) => match[1]);
  assert.deepEqual(names.filter((name) => name === "invoke_agent Payer").length, 2);
  for (const name of ["step 0", "step 1", "step 2", "chat Everyday", "execute_tool look_up", "execute_tool pay"]) {
    assert.ok(names.includes(name), `the example prints ${name}`);
  }
  const spans = output.split(/^}$/m).filter((block) => /^ {2}name: '/m.test(block));
  assert.equal(spans.length, names.length);
  assert.ok(spans.every((span) => /^ {4}'leash\.record\.digest': '[0-9a-f]{64}'/m.test(span)));
  assert.match(output, /run completed: \d+ records, the chain verifies/);
});
