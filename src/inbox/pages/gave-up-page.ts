import { html, runHref } from "../html.js";
import type { Html } from "../html.js";
import type { GaveUpWork } from "../gave-up.js";
import { page } from "./layout.js";
import type { Viewer } from "./layout.js";

/** The work that gave up, newest first: what needs a person's attention, with its attempts and problem. */
export function gaveUpPage(work: readonly GaveUpWork[], viewer: Viewer): Html {
  const rows = work.map(
    (item) =>
      html`<tr data-run-id="${item.runId}">
        <td class="run-id"><a href="${runHref(item.runId)}">${item.runId}</a></td>
        <td class="goal">
          ${item.skill === null ? null : html`<span class="skill">${item.skill}</span> `}${item.goal}
        </td>
        <td class="num" data-field="attempts" data-label="Attempts">${item.attempts}</td>
        <td data-field="problem"><code>${item.problem.code}</code> ${item.problem.message}</td>
        <td class="when"><time datetime="${item.endedAt}">${item.endedAt}</time></td>
      </tr>`,
  );
  const body =
    rows.length === 0
      ? html`<p class="empty">No work gave up.</p>`
      : html`<div class="table-wrap">
          <table class="runs">
            <thead>
              <tr>
                <th scope="col">Last run</th>
                <th scope="col">Goal</th>
                <th scope="col" class="num">Attempts</th>
                <th scope="col">Problem</th>
                <th scope="col">Ended</th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>
        </div>`;
  return page({
    title: "Gave up",
    viewer,
    events: "/events",
    main: html`<h1>Work that gave up</h1>
      <p class="lede">Each piece of work here used up its attempts; its last run holds the record of why.</p>
      ${body}`,
  });
}
