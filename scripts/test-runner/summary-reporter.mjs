// A node:test reporter that writes one test file's results as JSON, for scripts/test.mjs to add up:
// how many tests passed, failed and were skipped (with each skip's reason), and which failed.
// Suites are not counted as tests: only the tests inside them are, as node's own summary does.

/**
 * Reads the test runner's events and yields, once they have all come, one JSON object:
 * `{ tests, passed, failed, cancelled, todo, skipped: [{ name, reason }], failures: [{ name, error }] }`.
 */
export default async function* summaryReporter(source) {
  const summary = { tests: 0, passed: 0, failed: 0, cancelled: 0, todo: 0, skipped: [], failures: [] };
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { data } = event;
    if (data.details?.type === "suite") {
      // A suite that failed outside its tests (a hook, say) is a failure of its own.
      if (event.type === "test:fail" && data.details.error?.failureType !== "subtestsFailed") {
        summary.failures.push({ name: data.name, error: describe(data.details.error) });
        summary.failed += 1;
      }
      continue;
    }
    summary.tests += 1;
    if (data.skip !== undefined && data.skip !== false) {
      summary.skipped.push({ name: data.name, reason: data.skip === true ? "" : String(data.skip) });
    } else if (data.todo !== undefined && data.todo !== false) {
      summary.todo += 1;
    } else if (event.type === "test:pass") {
      summary.passed += 1;
    } else if (data.details?.error?.failureType === "cancelledByParent") {
      summary.cancelled += 1;
    } else {
      summary.failed += 1;
      summary.failures.push({ name: data.name, error: describe(data.details?.error) });
    }
  }
  yield `${JSON.stringify(summary)}\n`;
}

/** The first line of a failure's message, for the closing summary (the full error is in the spec output). */
function describe(error) {
  const cause = error?.cause ?? error;
  const message = typeof cause?.message === "string" ? cause.message : String(cause ?? "");
  return message.split("\n")[0].slice(0, 200);
}
