import { trace } from "../../index.js";
import type { ApprovalRequest, RunState, Step } from "../../index.js";
import { answeredBy, stepLines } from "../../operate/describe-run.js";
import { problemLines } from "../../operate/check-trail.js";
import { answerAction, html, joinHtml, jsonLineHtml } from "../html.js";
import type { Html } from "../html.js";
import type { RunChain } from "../run-chain.js";
import { page, statusBadge } from "./layout.js";
import type { Viewer } from "./layout.js";

/** A notice shown once on a run's page, after the viewer answered it. */
export type RunNotice = "approved" | "denied" | undefined;

/** A value as whole, pretty-printed JSON, one escaped line at a time inside a `<pre>`: nothing is cut. */
function jsonBlock(value: unknown, field?: string): Html {
  const lines = (JSON.stringify(value, null, 2) ?? "null").split("\n");
  const body = joinHtml(lines.map(jsonLineHtml), "\n");
  return field === undefined
    ? html`<pre class="json">${body}</pre>`
    : html`<pre class="json" data-field="${field}">${body}</pre>`;
}

function lineList(lines: readonly string[]): Html {
  return html`${lines.map((line) => html`<span class="line">${line.trim()}</span>`)}`;
}

/** A step's lines without the step number `leash show` starts them with: the page shows it beside them. */
function withoutIndex(lines: readonly string[]): string[] {
  const [first, ...rest] = lines;
  return first === undefined ? [] : [first.replace(/^\s*\d+\s+/, ""), ...rest];
}

function stepItem(step: Step, origins: Map<number, unknown>): Html {
  const outcome = step.outcome ?? "waiting";
  return html`<li data-step="${step.index}" data-outcome="${outcome}" class="step">
    <span class="step-no">${step.index}</span>
    <div class="step-body">${lineList(withoutIndex(stepLines(step, origins)))}</div>
  </li>`;
}

function chainText(chain: RunChain): Html {
  if (chain.ok) {
    const records = chain.check === undefined ? "" : ` (${chain.check.records} records)`;
    return html`<span class="ok">verified${records}</span>`;
  }
  return html`<span class="bad">${chain.problems.length} problems:</span> ${lineList(problemLines(chain.problems))}`;
}

function historyOf(state: RunState, request: ApprovalRequest): Html {
  const before = state.steps.filter((step) => step.index < request.step);
  if (before.length === 0) return html`<p>Nothing: it is the run's first step.</p>`;
  return html`<ol class="history">
    ${before.map((step) => {
      const { decision } = step;
      const asked = decision.type === "act" ? `${decision.tool} ${JSON.stringify(decision.args)}` : "finish";
      return html`<li data-step="${step.index}"><code>${asked}</code> → ${step.outcome ?? "waiting"}</li>`;
    })}
  </ol>`;
}

function pendingSection(state: RunState, viewer: Viewer): Html | null {
  const request = state.pending;
  if (state.status !== "awaiting_approval" || request === undefined) return null;
  const answers = state.answers.map((answer) => html`<li>${answeredBy(answer)}</li>`);
  const form =
    viewer.csrf === undefined
      ? html`<p>Signed in with a token: answer through <code>POST /api/runs/ID/answer</code>.</p>`
      : html`<form id="answer" method="post" action="${answerAction(state.runId)}" class="answer">
          <input type="hidden" name="_csrf" value="${viewer.csrf}" />
          <input type="hidden" name="digest" value="${request.digest}" />
          <label for="note">Note (kept with your answer)</label>
          <textarea id="note" name="note" rows="3" maxlength="2000"></textarea>
          <div class="decide">
            <button type="submit" name="decision" value="approve" class="approve">Approve as ${viewer.name}</button>
            <button type="submit" name="decision" value="deny" class="deny">Deny</button>
          </div>
        </form>`;
  return html`<section data-field="pending" data-digest="${request.digest}" class="pending">
    <h2>Waiting for your answer</h2>
    <p class="ask">
      Step ${request.step} asks to run <strong data-field="tool">${request.tool}</strong> with these arguments, in full:
    </p>
    ${jsonBlock(request.args, "args")}
    <dl class="facts">
      <dt>Effect</dt>
      <dd data-field="effect">${statusBadge(request.effect)}</dd>
      <dt>Scopes</dt>
      <dd data-field="scopes">${request.scopes.length === 0 ? "none" : request.scopes.join(", ")}</dd>
      <dt>Model's reason</dt>
      <dd data-field="reason">${request.reason ?? "none given"}</dd>
      <dt>Asked at</dt>
      <dd>${request.requestedAt}</dd>
      <dt>Digest</dt>
      <dd><code data-field="digest" class="digest">${request.digest}</code></dd>
    </dl>
    <h3>Asked after these steps</h3>
    <div data-field="history">${historyOf(state, request)}</div>
    ${
      answers.length === 0
        ? null
        : html`<h3>Answers recorded</h3>
            <ul class="answers">
              ${answers}
            </ul>`
    }
    ${form}
  </section>`;
}

function noticeOf(notice: RunNotice): Html | null {
  if (notice === undefined) return null;
  const verb = notice === "approved" ? "approval" : "denial";
  return html`<p role="status" class="notice">
    Your ${verb} was recorded. Nothing ran yet: the app acts on it when it resumes the run.
  </p>`;
}

/** A run's page: its status, chain, usage and cost, its trace, and the request it waits on with the answer form. */
export function runPage(state: RunState, chain: RunChain, viewer: Viewer, notice: RunNotice): Html {
  const origins = chain.check?.origins ?? new Map<number, unknown>();
  const said = trace(state).said.map((line) => html`<li>${line}</li>`);
  const facts = html`<dl class="facts">
    <dt>Status</dt>
    <dd data-field="status" data-status="${state.status}">
      ${statusBadge(state.status)}${state.stopReason === undefined ? null : html` (${state.stopReason})`}${state.failure === undefined ? null : html` ${state.failure.code}: ${state.failure.message}`}
    </dd>
    <dt>Goal</dt>
    <dd data-field="goal">${state.goal}</dd>
    ${
      state.skill === undefined
        ? null
        : html`<dt>Skill</dt>
            <dd>${state.skill} (attempt ${state.attempt})</dd>`
    }
    <dt>Agent</dt>
    <dd>${state.agent}${state.principal === undefined ? null : html`, working as ${state.principal}`}</dd>
    <dt>Audit chain</dt>
    <dd data-field="chain">${chainText(chain)}</dd>
    <dt>Usage</dt>
    <dd data-field="usage">${state.usage.tokens} tokens, ${state.toolCalls} tool calls</dd>
    <dt>Cost</dt>
    <dd data-field="cost">${state.usage.cost}</dd>
    <dt>Updated</dt>
    <dd>${state.updatedAt} (revision ${state.revision})</dd>
  </dl>`;
  return page({
    title: `Run ${state.runId}`,
    viewer,
    events: `/events?run=${encodeURIComponent(state.runId)}`,
    main: html`<p class="crumbs"><a href="/">Runs</a> / <span class="run-id">${state.runId}</span></p>
      <h1>Run <span class="run-id">${state.runId}</span></h1>
      ${noticeOf(notice)} ${pendingSection(state, viewer)}
      <section class="card">${facts}</section>
      <section class="card">
        <h2>Trace</h2>
        ${state.steps.length === 0 ? html`<p>No step yet.</p>` : null}
        <ol data-field="trace" class="trace">
          ${state.steps.map((step) => stepItem(step, origins))}
        </ol>
        <h3>Guards said</h3>
        ${
          said.length === 0
            ? html`<p>Nothing.</p>`
            : html`<ul data-field="said" class="said">
                ${said}
              </ul>`
        }
        ${
          state.answer === undefined
            ? null
            : html`<h3>Answer</h3>
                ${jsonBlock(state.answer)}`
        }
      </section>`,
  });
}
