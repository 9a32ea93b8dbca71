import type { JsonSchema } from "../tools/schema-validator.js";

/**
 * A typed job an agent can be given: its brief, the tools it may use, the shape of what it hands
 * back, a check of that output, and how many attempts failed work gets.
 *
 * @example
 * const estimate: Skill<Repair, Estimate> = {
 *   name: "EstimateRepair",
 *   tools: ["NoteRepair", "WhereIsTheKey"],
 *   output: { type: "object", properties: { hours: { type: "number" } }, required: ["hours"] },
 *   brief: (repair) => `Ticket ${repair.ticket}: ${repair.fault}.`,
 *   check: (estimate) => (estimate.hours <= 0 ? "An estimate takes some time." : null),
 *   retry: { attempts: 2 },
 * };
 */
export interface Skill<I = unknown, O = unknown> {
  name: string;
  description?: string;
  /** The agent's tools this skill may use (default: all of them). */
  tools?: string[];
  /** The JSON Schema of the output handed back, checked like tool arguments. */
  output?: JsonSchema;
  /** The goal the planner is given. */
  brief(input: I): string;
  /** A string refuses the output, and says why. */
  check?(output: O): string | null | undefined;
  /** How many attempts failed work gets in all (default 1). */
  retry?: { attempts: number };
}

/** What a planner is told of the skill being done. */
export interface SkillInfo {
  name: string;
  description: string;
  output?: JsonSchema;
}
