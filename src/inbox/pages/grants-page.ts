import type { GrantInfo } from "../../stores/grant-info.js";
import { grantStatus, usesLeft } from "../../operate/grant-expiry.js";
import { html } from "../html.js";
import type { Html } from "../html.js";
import { listTable, page } from "./layout.js";
import type { Viewer } from "./layout.js";

/** Where a grant's revoke button posts. */
export function revokeAction(id: string): string {
  return `/grants/${encodeURIComponent(id)}/revoke`;
}

function revokeButton(grant: GrantInfo, viewer: Viewer, now: Date): Html | null {
  if (grantStatus(grant, now) !== "active" || viewer.csrf === undefined || !viewer.roles.includes("approver"))
    return null;
  return html`<form method="post" action="${revokeAction(grant.id)}" class="revoke">
    <input type="hidden" name="_csrf" value="${viewer.csrf}" />
    <button type="submit" class="deny">Revoke as ${viewer.name}</button>
  </form>`;
}

/**
 * The store's standing grants, active first (each group oldest first): what each approves (its tool
 * and its whole argument schema), the uses left, its expiry, who gave it, and a revoke button.
 */
export function grantsPage(grants: readonly GrantInfo[], viewer: Viewer, now: Date, notice?: string): Html {
  const rows = grants.map(
    (grant) =>
      html`<tr data-grant-id="${grant.id}">
        <td class="run-id"><code>${grant.id}</code></td>
        <td data-field="tool">${grant.tool}</td>
        <td data-field="args">
          ${grant.args === undefined ? html`<em>any arguments</em>` : html`<pre>${JSON.stringify(grant.args, null, 2)}</pre>`}
        </td>
        <td class="num" data-field="left" data-label="Uses left">${usesLeft(grant)} of ${grant.maxUses}</td>
        <td class="when" data-field="expires">${grant.expiresAt ?? "never"}</td>
        <td data-field="by">
          ${grant.by}${grant.note === undefined ? null : html`<br /><small>${grant.note}</small>`}
        </td>
        <td data-field="status">${grantStatus(grant, now)}</td>
        <td>${revokeButton(grant, viewer, now)}</td>
      </tr>`,
  );
  const body =
    rows.length === 0
      ? html`<p class="empty">No standing grants.</p>`
      : listTable(
          html`<th scope="col">Grant</th>
            <th scope="col">Tool</th>
            <th scope="col">Arguments</th>
            <th scope="col" class="num">Uses left</th>
            <th scope="col">Expires</th>
            <th scope="col">Given by</th>
            <th scope="col">Status</th>
            <th scope="col"></th>`,
          rows,
        );
  return page({
    title: "Grants",
    viewer,
    main: html`<h1>Standing grants</h1>
      ${notice === undefined ? null : html`<p role="status" class="notice">${notice}</p>`}
      <p class="lede">
        Each grant approves calls of its tool whose arguments fit its schema, until its uses run out, it expires or it
        is revoked; every use is recorded in the run it approved.
      </p>
      ${body}`,
  });
}
