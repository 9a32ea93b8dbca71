import { html, runHref } from "../html.js";
import type { Html } from "../html.js";
import type { GaveUpWork } from "../gave-up.js";
import { listTable, page, pager } from "./layout.js";
import { pageLinks } from "./runs-page.js";
import type { Viewer } from "./layout.js";

/** One page of the work that gave up. */
interface GaveUpPage {
  work: readonly GaveUpWork[];
  /** 1-based; `null` for a page reached by a cursor alone. */
  page: number | null;
  /** The cursor of the next page, or `undefined` at the end. */
  next: string | undefined;
}

/**
 * The work that gave up, a page at a time: what needs a person's attention, with its sponsor,
 * attempts and problem; the signed-in person's sponsored work first, then the rest, each newest first.
 */
export function gaveUpPage(list: GaveUpPage, viewer: Viewer): Html {
  const rows = list.work.map(
    (item) =>
      html`<tr data-run-id="${item.runId}">
        <td class="run-id"><a href="${runHref(item.runId)}">${item.runId}</a></td>
        <td class="goal">
          ${item.skill === null ? null : html`<span class="skill">${item.skill}</span> `}${item.goal}
        </td>
        <td data-field="sponsor" data-label="Sponsor">${item.sponsor ?? ""}</td>
        <td class="num" data-field="attempts" data-label="Attempts">${item.attempts}</td>
        <td data-field="problem"><code>${item.problem.code}</code> ${item.problem.message}</td>
        <td class="when"><time datetime="${item.endedAt}">${item.endedAt}</time></td>
      </tr>`,
  );
  const body =
    rows.length === 0
      ? html`<p class="empty">No work gave up.</p>`
      : listTable(
          html`<th scope="col">Last run</th>
            <th scope="col">Goal</th>
            <th scope="col">Sponsor</th>
            <th scope="col" class="num">Attempts</th>
            <th scope="col">Problem</th>
            <th scope="col">Ended</th>`,
          rows,
        );
  return page({
    title: "Gave up",
    viewer,
    events: "/events",
    main: html`<h1>Work that gave up</h1>
      <p class="lede">
        Each piece of work here used up its attempts; its last run holds the record of why. Work you sponsor comes
        first.
      </p>
      ${body}${pager(list.page, ...pageLinks("/gave-up", null, list.page, list.next))}`,
  });
}
