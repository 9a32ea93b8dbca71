// The shared adapter suite (CONVENTIONS: "one shared adapter suite that every adapter runs through
// its SDK against a loopback server"). `adapterSuite(name)` runs every case through the public API
// (Agent, modelPlanner, stores, the trail) with the adapter's real SDK against its harness's
// loopback server, once with `stream: false` and once with `stream: true`, and checks what the
// server was sent through the harness's neutral reading. Every case also checks that the server
// refused nothing: each request is one the real API would take.
import { describe, test } from "node:test";
import { approvalCase } from "./support/approval-case.js";
import { editCase } from "./support/edit-case.js";
import { abortMidStreamCase, httpErrorCase } from "./support/failure-cases.js";
import { loadHarness } from "./support/harnesses.js";
import { MODES, mode } from "./support/loopback-test.js";
import { malformedArgumentsCase, unknownToolCase } from "./support/refusal-cases.js";
import type { CaseContext } from "./support/suite-context.js";
import { withServer } from "./support/suite-context.js";
import { providerStateCase, streamedTextCase, unreadableUsageCase, usageCostCase } from "./support/usage-cases.js";
import { workshopCase } from "./support/workshop-case.js";

// A deadline for one case, not a measure of it: the approval case starts two child processes.
const CASE_TIMEOUT_MS = 180_000;

/** Defines the shared cases for the adapter whose harness is `harnessName`. */
export function adapterSuite(harnessName: string): void {
  describe(`adapter suite: ${harnessName}`, async () => {
    const harness = await loadHarness(harnessName);
    for (const stream of MODES) {
      const both = (name: string, run: (context: CaseContext) => Promise<void>, skip: string | false = false) =>
        test(`${name} (${mode(stream)})`, { timeout: CASE_TIMEOUT_MS, skip }, () => withServer(harness, stream, run));

      both(
        "runs the second seed's workshop end to end: a withheld answer, a note, a refused then a good hand-back",
        workshopCase,
      );
      both(
        "takes three parallel calls, pauses at the write, and after `leash approve` another process runs the rest without asking the model",
        approvalCase,
      );
      both(
        "refuses malformed argument JSON as invalid_json, replays the text verbatim on its call id, and goes on",
        malformedArgumentsCase,
        harness.malformedArguments(stream)
          ? false
          : `${harnessName}'s wire cannot carry argument text that is not JSON here`,
      );
      both("answers a call to an unknown tool as unknown_tool, and goes on", unknownToolCase);
      both("tells the model, on the call's own id, that a person edited its arguments when approving", editCase);
      both("fails the run on a 429 with model_failed, audited, charging nothing", (context) =>
        httpErrorCase(context, 429),
      );
      both("fails the run on a 500 with model_failed, audited, charging nothing", (context) =>
        httpErrorCase(context, 500),
      );
      both("charges the exact cost of a usage with cache and reasoning tokens", usageCostCase);
      both(
        "fails the call with model_failed on a reported count that is not a safe non-negative integer, never counting it as 0",
        unreadableUsageCase,
      );
      both(
        "sends the provider's reasoning state back verbatim on the next request",
        providerStateCase,
        harness.providerState ? false : `${harnessName}'s wire carries no opaque reasoning state`,
      );
      if (stream) {
        both("streams text as `text` events that join to the answer", streamedTextCase);
        both("aborts the HTTP request when the run is cancelled in the middle of a stream", abortMidStreamCase);
      }
    }
  });
}
