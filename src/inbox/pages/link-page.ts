import type { RunState } from "../../state/run-state.js";
import { html } from "../html.js";
import type { Html } from "../html.js";
import type { LinkInfo } from "../link-store.js";
import type { WaitingRequest } from "../../operate/waiting-requests.js";
import { limitRequestFacts, raiseField } from "./limit-request-facts.js";
import { page } from "./layout.js";
import { callFacts, historyOf } from "./run-page.js";

/** Where a link's form posts: its own address (the token is a path segment of base64url, never escaped away). */
export function linkAction(token: string): string {
  return `/link/${encodeURIComponent(token)}`;
}

/**
 * The page a one-time link opens: the exact action the run waits on (the request's facts as the
 * run's page shows them, whole and escaped, with the run's goal and the steps before it), and a form
 * that answers it once as the link's person. Opening it changes nothing.
 */
export function linkPage(state: RunState, waiting: WaitingRequest, link: LinkInfo, token: string): Html {
  const { request } = waiting;
  const verb = request.kind === "limit" ? "raise this limit" : "run this call";
  return page({
    title: `Answer as ${link.name}`,
    main: html`<section data-field="pending" data-digest="${request.digest}" class="pending">
      <h1>Run <span class="run-id">${state.runId}</span> asks to ${verb}</h1>
      <p data-field="link-for">
        This one-time link answers as <strong data-field="link-name">${link.name}</strong>. It works once, until
        ${link.expiresAt}; opening it records nothing.
      </p>
      <dl class="facts">
        <dt>Goal</dt>
        <dd data-field="goal">${state.goal}</dd>
        ${
          waiting.callId === undefined
            ? null
            : html`<dt>Call</dt>
                <dd><code data-field="call-id">${waiting.callId}</code></dd>`
        }
      </dl>
      ${request.kind === "limit" ? limitRequestFacts(request) : callFacts(request, undefined)}
      <h3>Asked after these steps</h3>
      <div data-field="history">${historyOf(state, request)}</div>
      <form id="answer" method="post" action="${linkAction(token)}" class="answer">
        <input type="hidden" name="digest" value="${request.digest}" />
        ${raiseField(request, "")}
        <label for="note">Note (kept with your answer)</label>
        <textarea id="note" name="note" rows="3" maxlength="2000"></textarea>
        <div class="decide">
          <button type="submit" name="decision" value="approve" class="approve">Approve as ${link.name}</button>
          <button type="submit" name="decision" value="deny" class="deny">Deny</button>
        </div>
      </form>
    </section>`,
  });
}

/** The page after a link's answer: what was recorded, under which name, and what happens next. */
export function linkAnsweredPage(options: {
  state: RunState;
  link: LinkInfo;
  granted: boolean;
  recorded: boolean;
  notice?: string;
}): Html {
  const { state, link, granted, recorded, notice } = options;
  const verb = granted ? "approval" : "denial";
  const next =
    state.gate === true
      ? "the app's loop acts on it when it makes the same call again"
      : "the app acts on it when it resumes the run";
  return page({
    title: recorded ? `Your ${verb} was recorded` : "Nothing new was recorded",
    main: html`<section class="card">
      <h1>${recorded ? `Your ${verb} was recorded` : "Nothing new was recorded"}</h1>
      <p role="status" class="notice" data-field="link-answered" data-granted="${String(granted)}">
        ${
          recorded
            ? html`Your ${verb} of step ${link.step} of run <span class="run-id">${state.runId}</span> was recorded as
                <strong>${link.name}</strong> (link ${link.id}), for request digest
                <code class="digest">${link.digest}</code>. Nothing ran yet: ${next}.`
            : null
        }
        ${notice === undefined ? null : html`<span data-field="answer-notice">${notice}</span>`}
      </p>
      <p>This link is spent: it answers nothing more.</p>
    </section>`,
  });
}

/** The page of a link that answers nothing (410): unknown, expired or spent, and why, without a way in. */
export function linkGonePage(reason: string): Html {
  return page({
    title: "This link no longer works",
    main: html`<section class="card">
      <h1>This link no longer works</h1>
      <div role="alert" class="alert">
        <p data-field="link-gone">${reason}</p>
        <p class="code">Code: <code>link_gone</code></p>
      </div>
      <p>Ask for a new link, or sign in to the inbox to answer.</p>
    </section>`,
  });
}
