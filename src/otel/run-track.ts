import type { Link } from "@opentelemetry/api";
import type { AuditRecord } from "../audit/audit-record.js";
import type { Opened } from "./span-kit.js";

/** An open span and the last record that belongs to it, whose time and seq will end it. */
export interface Stretch extends Opened {
  last: AuditRecord;
}

/** An open step span, with what its records said so far. */
export interface StepSpan extends Stretch {
  index: number;
  first: AuditRecord;
  outcome?: string;
  message?: string;
  finish?: boolean;
  tool?: string;
  callId?: string;
  approvalDigest?: string;
  effect?: string;
}

/** An open tool span. */
export interface ToolSpan extends Stretch {
  step: number;
}

/** What the mapping knows of one run: the open spans of its current stretch, and its first span. */
export interface RunTrack {
  runId: string;
  agent?: string;
  run?: Stretch;
  step?: StepSpan;
  tool?: ToolSpan;
  /** Model calls made before the step they belong to was decided: `model_called` precedes `decision_made`. */
  models: { record: AuditRecord; start: string }[];
  /** How many stretches of the run were opened: records after the first one's close wait for the next. */
  stretches: number;
  /** The first stretch's span, which a resumed stretch links to. */
  firstLink?: Link;
  /** Records made while no stretch was open (an answer recorded by a store while the run was paused). */
  between: AuditRecord[];
  /** Of those, the ones that name a step, kept for that step's span in the next stretch. */
  early: AuditRecord[];
  lastAt?: string;
  /** The index the next step will have, as far as the records seen tell. */
  nextStep: number;
  /** The step a pause ended, whose decision its continuation after the resume carries on. */
  paused?: StepSpan;
}
