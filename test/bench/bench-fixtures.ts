import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const LIMITS = `# Limits and how a run ends

Limits holds the stopping conditions of a run. Each is checked before the call it bounds, so a call already running is not interrupted by it.

A run ends completed when the planner finished and the done criterion accepted the answer. It ends stopped when a limit was reached, and the stop reason names that limit. It ends failed when the planner or the done criterion raised or returned something invalid.

## Costs

Every tool declares a cost that is charged against the budget when its call starts. A call whose declared cost would take the spend past the budget is never started at all. ${"The budget is counted in the same units as the costs of the tools, whatever they are. ".repeat(8)}

\`\`\`ts
# a comment inside a code block is not a heading, and this line is not prose either.
const limits = { maxSteps: 8 };
\`\`\`
`;

const AUDIT = `# The audit trail

Each record names its run, a sequence number from zero, the event and its data, and the digest of the record before it. The verifier finds a record that was changed, removed or reordered anywhere in the trail.

- A sink appends one line per record to a file, and reading the file back gives the records again.
- The chain cannot show a trail that was cut after its last record, but the saved state of the run can.

${"word ".repeat(150).trim()} and this long paragraph has no sentence end for a very long while so the chunker has to cut it by words.
`;

const APPROVALS = `# Approval, pause and resume

Write and external tools run only under a policy that allows their effect, and then only with a person's approval of each call. An approval is bound to the digest of the exact action and of the history of the run up to the request.

A refusal of the call is the outcome of the step, and the planner sees it on the next turn.
`;

const made: string[] = [];

/** A small Markdown corpus in a new temporary folder: three files, two in a sub-folder. */
export function tinyCorpus(): string {
  const folder = mkdtempSync(join(tmpdir(), "leash-bench-corpus-"));
  made.push(folder);
  mkdirSync(join(folder, "guide"));
  writeFileSync(join(folder, "limits.md"), LIMITS);
  writeFileSync(join(folder, "guide", "audit.md"), AUDIT);
  writeFileSync(join(folder, "guide", "approvals.md"), APPROVALS);
  writeFileSync(join(folder, "notes.txt"), "Not Markdown, so not part of the corpus.");
  return folder;
}

/** Removes every corpus folder {@link tinyCorpus} made. */
export function removeTinyCorpora(): void {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
}
