import { mayAnswerAny, roleToAnswer } from "../approver-roles.js";
import { trace } from "../../trace/trace.js";
import type { ApprovalRequest, CallApprovalRequest } from "../../approvals/approval.js";
import type { RunState } from "../../state/run-state.js";
import type { Step } from "../../state/saved-run-state.js";
import { limitRequestFacts, raiseField } from "./limit-request-facts.js";
import { answeredBy, stepLines } from "../../operate/describe-run.js";
import { problemLines } from "../../operate/check-trail.js";
import { answerAction, html, joinHtml, jsonLineHtml } from "../html.js";
import type { Html } from "../html.js";
import type { RunChain } from "../run-chain.js";
import { costText } from "../../operate/cost-text.js";
import { interruptedSteps } from "../../operate/interrupted-steps.js";
import { page, statusBadge } from "./layout.js";
import { interruptedFlag } from "./runs-page.js";
import type { Viewer } from "./layout.js";
import type { AnswerNotice } from "../session-store.js";
import { answerEffect, answersToPending, givenBy, nameText, verdictText } from "../standing-answers.js";
import type { StandingAnswer } from "../standing-answers.js";
import { waitingRequests } from "../../operate/waiting-requests.js";
import { approvalCount } from "../../operate/approval-count.js";
import type { WaitingRequest } from "../../operate/waiting-requests.js";

/** A notice shown once on a run's page, after the viewer answered it. */
export type RunNotice = AnswerNotice | undefined;

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
  // "verified" is said only of a state that agrees with its verified chain: otherwise the page says
  // which part of what it shows the trail does not cover.
  return html`<span class="bad" data-field="coverage">${chain.coverage}</span>
    ${lineList(problemLines(chain.problems))}`;
}

/** The steps a request was asked after, each with its call and outcome. */
export function historyOf(state: RunState, request: ApprovalRequest): Html {
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

/** What a call request asks: the tool, its arguments whole, effect, scopes, reason, time and digest. */
export function callFacts(request: CallApprovalRequest, count: string | undefined): Html {
  return html`<p class="ask">
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
      ${
        count === undefined
          ? null
          : html`<dt>Approvals</dt>
              <dd data-field="approvals">${count}</dd>`
      }
    </dl>`;
}

/** `answered by you: approved, waiting for the app to act`, or `answered by noor: denied`, then where from and the note. */
function answerItem(answer: StandingAnswer, viewer: Viewer): Html {
  const mine = givenBy(answer, viewer.name);
  const who = mine ? "you" : nameText(answer.approver);
  return html`<li data-approver="${answer.approver}" data-granted="${String(answer.granted)}">
    <strong class="answered">answered by ${who}: ${verdictText(answer)}</strong
    >${mine ? ", waiting for the app to act" : null}
    <span class="origin">(${answeredBy(answer)})</span>
  </li>`;
}

/** The answer form, or, once the viewer answered, what they answered instead of its buttons. */
function answerForm(state: RunState, request: ApprovalRequest, viewer: Viewer, suffix: string): Html {
  // Only the forms the viewer's roles allow are shown: the routes refuse the rest anyway.
  if (!mayAnswerAny(viewer.roles))
    return html`<p class="view-only" data-field="view-only">
      You can view only (role ${viewer.roles.join(", ")}): answering takes the role approver or spender.
    </p>`;
  const needs = roleToAnswer(request);
  if (!viewer.roles.includes(needs))
    return html`<p class="view-only" data-field="role-needed">
      ${request.kind === "limit" ? "A limit request" : "A call's request"} is answered by the role ${needs}; your roles
      are ${viewer.roles.join(", ")}.
    </p>`;
  const answers = answersToPending(state, request.digest);
  const mine = answers.find((answer) => givenBy(answer, viewer.name));
  if (mine !== undefined)
    return html`<p class="answered-by-you" data-field="answered">
      <strong>answered by you: ${verdictText(mine)}, waiting for the app to act.</strong> Nothing runs until the app
      resumes the run; your answer cannot be changed here.
    </p>`;
  // What an approval from this viewer would do, said before the buttons: a denial may already stand.
  const standing = answerEffect(answers, viewer.name, true);
  const warning =
    standing.type === "record" && standing.notice !== undefined && answers.some((answer) => !answer.granted)
      ? html`<p class="warning" data-field="denial-stands">
          A denial already stands
          (${joinHtml(
            answers.filter((answer) => !answer.granted).map((answer) => html`denied by ${nameText(answer.approver)}`),
            ", ",
          )}):
          a denial by an approver the app's policy allows wins over every approval.
        </p>`
      : null;
  if (viewer.csrf === undefined)
    return html`${warning}
      <p>Signed in with a token: answer through <code>POST /api/runs/ID/answer</code>.</p>`;
  return html`${warning}
    <form id="answer${suffix}" method="post" action="${answerAction(state.runId)}" class="answer">
      <input type="hidden" name="_csrf" value="${viewer.csrf}" />
      <input type="hidden" name="digest" value="${request.digest}" />
      ${raiseField(request, suffix)}
      <label for="note${suffix}">Note (kept with your answer)</label>
      <textarea id="note${suffix}" name="note" rows="3" maxlength="2000"></textarea>
      ${
        request.kind === "call"
          ? html`<label for="args${suffix}">Edit the arguments (JSON; leave empty to approve them as asked)</label>
              <textarea id="args${suffix}" name="args" rows="4" data-field="edit-args" spellcheck="false"></textarea>`
          : null
      }
      <div class="decide">
        <button type="submit" name="decision" value="approve" class="approve">Approve as ${viewer.name}</button>
        <button type="submit" name="decision" value="deny" class="deny">Deny</button>
      </div>
      ${request.kind === "call" ? allowMoreField(request, viewer) : null}
    </form>`;
}

/** "Approve, and allow N more calls of this tool with exactly these arguments for T": a call's only. */
function allowMoreField(request: CallApprovalRequest, viewer: Viewer): Html {
  return html`<fieldset class="allow-more" data-field="allow-more">
    <legend>Approve, and allow more calls of <code>${request.tool}</code> with exactly these arguments</legend>
    <label>calls <input type="number" name="more_uses" min="1" max="1000" value="5" /></label>
    <label
      >for
      <select name="more_for">
        <option value="30m">30 minutes</option>
        <option value="2h">2 hours</option>
        <option value="1d" selected>a day</option>
        <option value="7d">7 days</option>
      </select></label
    >
    <button type="submit" name="decision" value="approve_and_allow" class="approve">
      Approve, and allow these more as ${viewer.name}
    </button>
  </fieldset>`;
}

/**
 * Every request the run waits on, each in a section of its own with its own buttons bound to its
 * digest: one for a paused run, one per waiting call for a gate's session.
 */
function pendingSections(state: RunState, viewer: Viewer): Html | null {
  const waiting = waitingRequests(state);
  if (waiting.length === 0) return null;
  return joinHtml(
    waiting.map((item) => pendingSection(state, item, viewer)),
    "",
  );
}

function pendingSection(state: RunState, waiting: WaitingRequest, viewer: Viewer): Html {
  const { request, callId } = waiting;
  // A gate's session may show several forms: each one's ids name its step, so none repeats.
  const suffix = state.gate === true ? `-${request.step}` : "";
  const standing = answersToPending(state, request.digest);
  const answers = standing.map((answer) => answerItem(answer, viewer));
  const form = answerForm(state, request, viewer, suffix);
  const answeredByViewer = standing.some((answer) => givenBy(answer, viewer.name));
  const count = approvalCount(state, request);
  return html`<section data-field="pending" data-digest="${request.digest}" class="pending">
    <h2>
      ${
        answeredByViewer
          ? "Answered by you: waiting for the app to act"
          : viewer.roles.includes(roleToAnswer(request))
            ? "Waiting for your answer"
            : "Waiting for an answer"
      }
    </h2>
    ${
      state.gate === true
        ? html`<p class="warning" data-field="recorded-by-loop">
            Recorded by the app's loop: this run is a gate's session, driven by the app's framework loop, which records
            each call it makes (call <code data-field="call-id">${callId ?? "none"}</code>). A client of that loop can
            make a call the model never asked for: approve only a call you expect.
          </p>`
        : null
    }
    ${request.kind === "limit" ? limitRequestFacts(request) : callFacts(request, count)}
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

function noticeOf(notice: RunNotice, gate: boolean): Html | null {
  if (notice === undefined) return null;
  const verb = notice.granted ? "approval" : "denial";
  const next = gate
    ? "the app's loop acts on it when it makes the same call again"
    : "the app acts on it when it resumes the run";
  const said = notice.recorded ? `Your ${verb} was recorded. Nothing ran yet: ${next}.` : "";
  return html`<p role="status" class="notice">
    ${said}${notice.text === undefined ? null : html` <span data-field="answer-notice">${notice.text}</span>`}
  </p>`;
}

/** A run's page: its status, chain, usage and cost, its trace, and the request it waits on with the answer form. */
export function runPage(state: RunState, chain: RunChain, viewer: Viewer, notice: RunNotice): Html {
  const origins = chain.check?.origins ?? new Map<number, unknown>();
  const said = trace(state).said.map((line) => html`<li>${line}</li>`);
  const facts = html`<dl class="facts">
    <dt>Status</dt>
    <dd data-field="status" data-status="${state.status}">
      ${statusBadge(state.status)}${interruptedFlag(interruptedSteps(state).length)}${state.stopReason === undefined ? null : html` (${state.stopReason})`}${state.failure === undefined ? null : html` ${state.failure.code}: ${state.failure.message}`}
    </dd>
    ${
      state.gate === true
        ? html`<dt>Driven by</dt>
            <dd data-field="gate">
              the app's framework loop: a gate's session, each tool call one step, running between calls
            </dd>`
        : null
    }
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
    <dd data-field="cost">${costText(state.usage.cost)}</dd>
    <dt>Updated</dt>
    <dd>${state.updatedAt} (revision ${state.revision})</dd>
  </dl>`;
  return page({
    title: `Run ${state.runId}`,
    viewer,
    events: `/events?run=${encodeURIComponent(state.runId)}`,
    main: html`<p class="crumbs"><a href="/">Runs</a> / <span class="run-id">${state.runId}</span></p>
      <h1>Run <span class="run-id">${state.runId}</span></h1>
      ${noticeOf(notice, state.gate === true)} ${pendingSections(state, viewer)}
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
