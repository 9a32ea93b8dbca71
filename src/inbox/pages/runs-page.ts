import { costText } from "../../operate/cost-text.js";
import { interruptedText } from "../../operate/interrupted-steps.js";
import { html, runHref } from "../html.js";
import type { Html } from "../html.js";
import { LIST_FILTERS } from "../list-runs.js";
import type { RunPage } from "../list-runs.js";
import type { RunRow } from "../../operate/run-row.js";
import { listTable, page, pager, statusBadge } from "./layout.js";
import type { Viewer } from "./layout.js";

/** The address of a page of the list: by number, or by the cursor it starts at (and its number, when known). */
function listUrl(path: string, status: string | null, pageNumber: number | null, cursor?: string): string {
  const query = new URLSearchParams();
  if (status !== null) query.set("status", status);
  if (pageNumber !== null && pageNumber > 1) query.set("page", String(pageNumber));
  if (cursor !== undefined) query.set("cursor", cursor);
  const text = query.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** The newer and older links of a page: the newer by number (a cursor reads one way), the older by the page's cursor. */
export function pageLinks(
  path: string,
  status: string | null,
  current: number | null,
  next: string | undefined,
): [previous: string | null, next: string | null] {
  const previous = current !== null && current > 1 ? listUrl(path, status, current - 1) : null;
  const older = next === undefined ? null : listUrl(path, status, current === null ? null : current + 1, next);
  return [previous, older];
}

function filters(current: string | null): Html {
  const links = [null, ...LIST_FILTERS].map((status) => {
    const label = status === null ? "all" : status.replace(/_/g, " ");
    const here = status === current ? "page" : null;
    return html`<a
      href="${listUrl("/", status, 1)}"
      class="filter"
      data-filter="${status ?? "all"}"
      aria-current="${here ?? "false"}"
      >${label}</a
    >`;
  });
  return html`<nav class="filters" aria-label="Filter by status">${links}</nav>`;
}

/** The flag of a run with interrupted steps, under its status: a person should check those calls. */
export function interruptedFlag(count: number): Html | null {
  const text = interruptedText(count);
  return text === null
    ? null
    : html`<span class="flag" data-field="interrupted" data-count="${String(count)}">${text}</span>`;
}

/** The flag of a gate's session, under its status: it stays running while requests wait for a person. */
function gateFlag(run: RunRow): Html | null {
  if (!run.gate) return null;
  return html`<span class="flag" data-field="gate" data-waiting="${String(run.waiting)}"
    >gate session${run.waiting === 0 ? null : html`: ${String(run.waiting)} waiting for a person`}</span
  >`;
}

/** "k of n approvals", under the status of a run whose request needs more than one approver. */
function approvalsFlag(run: RunRow): Html | null {
  return run.approvals === null ? null : html`<span class="flag" data-field="approvals">${run.approvals}</span>`;
}

/** The run list: newest first, filtered by status, a page at a time. */
export function runsPage(list: RunPage, viewer: Viewer): Html {
  const rows = list.runs.map(
    (run) =>
      html`<tr data-run-id="${run.runId}" data-status="${run.status}">
        <td class="run-id"><a href="${runHref(run.runId)}">${run.runId}</a></td>
        <td>${statusBadge(run.status)}${gateFlag(run)}${approvalsFlag(run)}${interruptedFlag(run.interruptedSteps)}</td>
        <td class="goal">${run.skill === null ? null : html`<span class="skill">${run.skill}</span> `}${run.goal}</td>
        <td class="num" data-label="Steps">${run.steps}</td>
        <td class="num" data-label="Cost" data-field="cost">${costText(run.cost)}</td>
        <td class="when">
          <time datetime="${run.updatedAt}">${run.updatedAt.replace("T", " ").replace(/\.\d+Z$/, "Z")}</time>
        </td>
      </tr>`,
  );
  const table =
    rows.length === 0
      ? html`<p class="empty">
          No run${list.status === null ? "" : html` is <strong>${list.status.replace(/_/g, " ")}</strong>`} here.
        </p>`
      : listTable(
          html`<th scope="col">Run</th>
            <th scope="col">Status</th>
            <th scope="col">Goal</th>
            <th scope="col" class="num">Steps</th>
            <th scope="col" class="num">Cost</th>
            <th scope="col">Updated</th>`,
          rows,
        );
  const events = "/events";
  return page({
    title: list.status === null ? "Runs" : `Runs: ${list.status.replace(/_/g, " ")}`,
    viewer,
    events,
    main: html`<h1>Runs</h1>
      ${filters(list.status)}${table}${pager(list.page, ...pageLinks("/", list.status, list.page, list.next))}`,
  });
}
