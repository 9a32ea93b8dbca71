/**
 * leash: bounded, audited tool use for AI agents. This is the core: no I/O beyond `node:crypto` and
 * `node:fs`, and no driver; the durable stores, model adapters and testing helpers have subpaths.
 */
export { Agent } from "./agent/agent.js";
export type { SkillOutcome } from "./agent/agent.js";
export type { AgentOptions } from "./agent/agent-options.js";
export type { CheckpointOptions, CheckpointFailedEvent } from "./agent/auto-checkpoint.js";
export type { AgentEvents, RunFailedEvent, GaveUpEvent, TextEvent } from "./agent/agent-events.js";
export type { RunOptions } from "./run/start-run.js";
export type { ResumeOptions } from "./run/take-over.js";
export type { BudgetOption, BudgetRun, DoneCriterion } from "./run/agent-core.js";
export { Gate } from "./gate/gate.js";
export type { GateOptions } from "./gate/gate-options.js";
export type {
  GateSession,
  GateSessionOptions,
  GateCallOptions,
  GateCharge,
  GateChargeAnswer,
} from "./gate/gate-session.js";
export type { GateCallAnswer, RefusedOutcome } from "./gate/gate-answer.js";
export type { Planner, PlannerContext, CallModelOptions } from "./models/planner.js";

export { tool, Tool, EFFECTS } from "./tools/tool.js";
export type { Effect, ToolSpec, ToolDescription, ToolDefinition, ToolParameters } from "./tools/tool.js";
export type { ToolContext } from "./tools/tool-context.js";
export { Toolset } from "./tools/toolset.js";
export type { JsonSchema } from "./tools/schema-validator.js";
export type { StandardTypedSchema, StandardInput, StandardOutput } from "./tools/standard-schema.js";

export { Decision } from "./decisions/decision.js";
export type { ActDecision, FinishDecision, Usage } from "./decisions/decision.js";
export { Policy } from "./policy/policy.js";
export type { PolicyOptions } from "./policy/policy.js";
export type {
  AskToRaise,
  BudgetStopReason,
  Limits,
  RaisableLimit,
  RequestedLimit,
  StopReason,
} from "./limits/limits.js";

export { Approval } from "./approvals/approval.js";
export type {
  ApprovalRequest,
  CallApprovalRequest,
  LimitApprovalRequest,
  ApprovalJson,
  Approver,
} from "./approvals/approval.js";
export { approvalDigest, historyDigest } from "./approvals/approval-digest.js";

export { RunState, RUN_STATE_VERSION } from "./state/run-state.js";
export type { RunStateJson, Step, StepError, Failure } from "./state/run-state.js";
export { stateAgreesWithTrail, type StateCheck, type StateMismatch } from "./state/state-agrees-with-trail.js";
export { RUN_STATUSES, OUTCOMES } from "./state/outcomes.js";
export type { RunStatus, Outcome } from "./state/outcomes.js";
export { FAILURE_CODES } from "./errors/index.js";
export type { FailureCode } from "./errors/index.js";

export { MemoryStore } from "./stores/memory-store.js";
export type { RunStore, SaveOptions, RunStoreWithAudit, ListOptions } from "./stores/run-store.js";
export { cursorAfter, MAX_LIST_LIMIT, RUN_ORDERS } from "./stores/run-summary.js";
export { listSummaries } from "./stores/list-summaries.js";
export type {
  GrantInfo,
  GrantOptions,
  GiveGrantOptions,
  RevokeGrantOptions,
  GrantsOptions,
} from "./stores/grant-info.js";
export type { BudgetInfo, BudgetLimits, BudgetSpent, BudgetStop, BudgetChangeOptions } from "./stores/budget-info.js";
export type {
  ClaimNotificationsOptions,
  NotificationEvent,
  NotificationOutcome,
  NotificationPage,
  NotificationStatus,
  NotificationType,
  NotificationsOptions,
  StartNotificationsOptions,
  StartNotificationsResult,
} from "./stores/notification-info.js";
export { NOTIFICATION_STATUSES, notificationEventsOf } from "./stores/notification-info.js";
export type { BudgetLimitName } from "./stores/budget-raise.js";
export type { RunSummary, RunOrder, SummaryPage } from "./stores/run-summary.js";
export type { AnswerOrigin } from "./approvals/answer-origin.js";

export {
  MemoryAuditSink,
  JsonlAuditSink,
  readAudit,
  readAuditPrefix,
  repairAudit,
  parseAuditRecord,
  verifyAudit,
  makeRecord,
  recordDigest,
} from "./audit/index.js";
export type {
  AuditRecord,
  AuditHead,
  AuditSink,
  AuditProblem,
  AuditProblemKind,
  AuditPrefix,
  TornTail,
  FsyncMode,
} from "./audit/index.js";

// The evidence an app signs and checks from the root; the Merkle log, notes, cosignatures and what a
// store implements are in `leash/evidence`.
export { keygen, signCheckpoint, verifyCheckpoint } from "./evidence/index.js";
export type { KeyPair, EvidenceSource, CheckpointProblem, CheckpointProblemKind } from "./evidence/index.js";

export { allow, block } from "./guards/guard.js";
export type { Guard, GuardedWork, Verdict, GuardPoint } from "./guards/guard.js";
export type {
  ModelClient,
  ModelRequest,
  ModelResponse,
  ModelMessage,
  ModelUserMessage,
  ModelAssistantMessage,
  ModelToolMessage,
  ModelToolCall,
  ModelUsage,
  FinishReason,
  GenerateOptions,
  Price,
} from "./models/model-client.js";
export type { ModelTurn, TurnCall } from "./decisions/decision.js";
export type { Skill, SkillInfo } from "./skills/skill.js";
export { modelPlanner } from "./models/model-planner.js";
export { modelRequestDigest } from "./models/seal-request.js";
export { conversationOf } from "./models/conversation.js";
export type { ModelPlannerOptions } from "./models/model-planner.js";
export { trace } from "./trace/trace.js";
export type { Trace } from "./trace/trace.js";

export { LeashError, StateError, isLeashError, ERROR_CODES } from "./errors/index.js";
export type { ErrorCode } from "./errors/index.js";
export { canonicalJson, toJson, MAX_JSON_DEPTH } from "./json/index.js";
export type { Json, JsonObject } from "./json/index.js";
