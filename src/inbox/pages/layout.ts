import type { Role } from "../approver-roles.js";
import { html } from "../html.js";
import type { Html } from "../html.js";

/** What every page of the inbox knows of who is looking at it. */
export interface Viewer {
  /** The signed-in approver's name. */
  name: string;
  /** Their roles: the page shows only the forms these allow. */
  roles: readonly Role[];
  /** The session's CSRF token; absent for a script signed in with a Bearer token (no form to post). */
  csrf?: string;
}

/** A page's parts: its title, the main content, and the event stream that refreshes it, if any. */
interface PageParts {
  title: string;
  main: Html;
  viewer?: Viewer;
  /** The `/events` URL whose `change` events refresh the page's `<main>`. */
  events?: string;
}

function header(viewer: Viewer | undefined): Html {
  if (viewer === undefined) return html`<header class="top"><span class="brand">leash inbox</span></header>`;
  const signOut =
    viewer.csrf === undefined
      ? null
      : html`<form method="post" action="/signout" class="signout">
          <input type="hidden" name="_csrf" value="${viewer.csrf}" />
          <button type="submit" class="link">Sign out</button>
        </form>`;
  return html`<header class="top">
    <a class="brand" href="/">leash inbox</a>
    <nav>
      <a href="/">Runs</a> <a href="/?status=awaiting_approval">Waiting</a> <a href="/gave-up">Gave up</a>
      <a href="/grants">Grants</a> <a href="/budgets">Budgets</a>
    </nav>
    <span class="who"
      >Signed in as <strong>${viewer.name}</strong>
      <span class="roles" data-field="signed-in-roles">(${viewer.roles.join(", ")})</span></span
    >
    ${signOut}
  </header>`;
}

/**
 * A whole page: no inline script or style (the content security policy forbids them), only the
 * inbox's own stylesheet and script, served by the command.
 */
export function page(parts: PageParts): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${parts.title} · leash inbox</title>
        <link rel="stylesheet" href="/assets/inbox.css" />
        <script src="/assets/inbox.js" defer></script>
      </head>
      <body>
        ${header(parts.viewer)}
        <main data-events="${parts.events ?? ""}">${parts.main}</main>
      </body>
    </html> `;
}

/** The badge of a run status (or `gave_up`). */
export function statusBadge(status: string): Html {
  return html`<span class="badge badge-${status}">${status.replace(/_/g, " ")}</span>`;
}

/**
 * The links between a list's pages: newer (the page before, by number) and older (the next page,
 * by the cursor a page ends with, and its number). No count of pages: a store's listing is read a
 * page at a time, never counted whole.
 */
export function pager(current: number | null, previousUrl: string | null, nextUrl: string | null): Html | null {
  if (previousUrl === null && nextUrl === null) return null;
  const previous = previousUrl === null ? null : html`<a rel="prev" href="${previousUrl}">← Newer</a>`;
  const next = nextUrl === null ? null : html`<a rel="next" href="${nextUrl}">Older →</a>`;
  const label = current === null ? null : html`<span>Page ${current}</span>`;
  return html`<nav class="pager" aria-label="Pages">${previous}${label}${next}</nav>`;
}

/** A list's table (runs, or the work that gave up): its column headings, then its rows. */
export function listTable(headings: Html, rows: readonly Html[]): Html {
  return html`<div class="table-wrap">
    <table class="runs">
      <thead>
        <tr>
          ${headings}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}
