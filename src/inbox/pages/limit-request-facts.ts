import type { ApprovalRequest, LimitApprovalRequest } from "../../approvals/approval.js";
import { limitAmountText } from "../../operate/limit-request-text.js";
import { html } from "../html.js";
import type { Html } from "../html.js";

/** What a limit request asks: which limit the run reached, what it used and what it was allowed. */
export function limitRequestFacts(request: LimitApprovalRequest): Html {
  return html`<p class="ask">
      At step ${request.step} the run reached <strong data-field="limit">${request.limit}</strong> and asks to go on
      with a higher limit.
    </p>
    <dl class="facts">
      <dt>Used</dt>
      <dd data-field="used">${limitAmountText(request.limit, request.used)}</dd>
      <dt>Allowed</dt>
      <dd data-field="allowed">${limitAmountText(request.limit, request.allowed)}</dd>
      <dt>Asked at</dt>
      <dd>${request.requestedAt}</dd>
      <dt>Digest</dt>
      <dd><code data-field="digest" class="digest">${request.digest}</code></dd>
    </dl>`;
}

/** The raise field of a limit request's form: approving it says to what the limit goes. */
export function raiseField(request: ApprovalRequest, suffix: string): Html | null {
  if (request.kind !== "limit") return null;
  const integer = request.limit !== "max_cost" && request.limit !== "budget_cost";
  return html`<label for="raise${suffix}"
      >Raise ${request.limit} to (more than ${limitAmountText(request.limit, request.used)})</label
    >
    <input
      id="raise${suffix}"
      name="raise_to"
      type="number"
      min="0"
      step="${integer ? "1" : "any"}"
      data-field="raise-to"
    />`;
}
