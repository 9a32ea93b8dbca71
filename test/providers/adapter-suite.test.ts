// Runs the shared adapter suite for every adapter whose harness is in this tree. A harness not yet
// merged is skipped with the reason; once every adapter has landed, all four must run.
import { describe, test } from "node:test";
import { adapterSuite } from "./adapter-suite.js";
import { HARNESS_NAMES, loadHarness } from "./support/harnesses.js";

const inCi = process.env.CI === "true";

for (const name of HARNESS_NAMES) {
  let missing: string | undefined;
  try {
    await loadHarness(name);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== "ERR_MODULE_NOT_FOUND") throw error;
    missing = (error as Error).message.split("\n")[0];
  }
  if (missing === undefined) {
    adapterSuite(name);
  } else {
    describe(`adapter suite: ${name}`, () => {
      // In CI every adapter must run: a missing harness is a failure there, not a skip.
      test(
        "has a loopback harness",
        { skip: inCi ? false : `the ${name} harness is not in this tree yet (${missing})` },
        () => {
          throw new Error(`The ${name} harness is missing: ${missing}`);
        },
      );
    });
  }
}
