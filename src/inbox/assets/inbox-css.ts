/**
 * The inbox's only stylesheet, served as `/assets/inbox.css`: system fonts, high contrast, one
 * column on a phone (375 px), the pending request's action first, approve and deny unmistakable.
 */
export const INBOX_CSS = `:root {
  --ink: #14171f; --muted: #555d6e; --line: #d9dde5; --paper: #ffffff; --wash: #f4f6f9;
  --accent: #1f4fd1; --ok: #126b3a; --ok-wash: #e3f4ea; --bad: #a3211a; --bad-wash: #fbe7e5;
  --wait: #8a5300; --wait-wash: #fff2d9; --radius: 8px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--wash); line-height: 1.5;
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, textarea:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
code, pre, .digest, .run-id { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.25rem; padding: .75rem 1rem; background: var(--ink); color: #fff; }
.top a { color: #fff; text-decoration: none; }
.top nav { display: flex; gap: 1rem; }
.top nav a:hover { text-decoration: underline; }
.brand { font-weight: 700; letter-spacing: .02em; }
.who { margin-left: auto; font-size: .9rem; }
.signout { display: inline; }
button.link { background: none; border: 1px solid #8a93a6; color: #fff; border-radius: 6px; padding: .25rem .6rem; cursor: pointer; font: inherit; font-size: .9rem; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 0 0 .75rem; }
h3 { font-size: 1rem; margin: 1.25rem 0 .5rem; }
.card, .pending { background: var(--paper); border: 1px solid var(--line); border-radius: var(--radius); padding: 1rem; margin: 0 0 1rem; }
.narrow { max-width: 28rem; margin: 2rem auto; }
.stack { display: flex; flex-direction: column; gap: .5rem; }
input[type=password], textarea { width: 100%; font: inherit; padding: .6rem; border: 1px solid #9aa2b1; border-radius: 6px; background: #fff; color: var(--ink); }
button { font: inherit; cursor: pointer; }
.primary { background: var(--accent); color: #fff; border: 0; border-radius: 6px; padding: .6rem 1rem; font-weight: 600; }
.alert { background: var(--bad-wash); color: var(--bad); border: 1px solid #e6b3ae; border-radius: 6px; padding: .5rem .75rem; margin: .75rem 0; }
.alert p { margin: .25rem 0; }
.notice { background: var(--ok-wash); color: var(--ok); border: 1px solid #a9d9bb; border-radius: 6px; padding: .6rem .75rem; }
.notice.changed { background: var(--wait-wash); color: var(--wait); border-color: #ecc88a; }
.filters { display: flex; flex-wrap: wrap; gap: .4rem; margin-bottom: 1rem; }
.filter { padding: .25rem .7rem; border: 1px solid var(--line); border-radius: 999px; background: var(--paper); text-decoration: none; color: var(--ink); font-size: .9rem; }
.filter[aria-current=page] { background: var(--ink); color: #fff; border-color: var(--ink); }
.table-wrap { overflow-x: auto; background: var(--paper); border: 1px solid var(--line); border-radius: var(--radius); }
table.runs { width: 100%; border-collapse: collapse; font-size: .95rem; }
.runs th, .runs td { text-align: left; padding: .55rem .75rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.runs th { background: var(--wash); font-weight: 600; font-size: .85rem; color: var(--muted); }
.runs tr:last-child td { border-bottom: 0; }
.goal { overflow-wrap: anywhere; min-width: 12rem; }
.skill { font-weight: 600; }
.num { text-align: right; }
.when { white-space: nowrap; color: var(--muted); font-size: .85rem; }
.run-id { overflow-wrap: anywhere; }
.badge { display: inline-block; padding: .05rem .55rem; border-radius: 999px; font-size: .8rem; font-weight: 600; background: var(--wash); color: var(--muted); border: 1px solid var(--line); white-space: nowrap; }
.badge-awaiting_approval, .badge-write, .badge-external { background: var(--wait-wash); color: var(--wait); border-color: #ecc88a; }
.badge-completed, .badge-read { background: var(--ok-wash); color: var(--ok); border-color: #a9d9bb; }
.badge-failed, .badge-stopped, .badge-gave_up { background: var(--bad-wash); color: var(--bad); border-color: #e6b3ae; }
.flag { display: block; margin-top: .25rem; font-size: .8rem; font-weight: 600; color: var(--bad); }
.warning { background: var(--bad-wash); color: var(--bad); border: 1px solid #e6b3ae; border-radius: 6px; padding: .6rem .75rem; }
.answered-by-you { background: var(--ok-wash); color: var(--ok); border: 1px solid #a9d9bb; border-radius: 6px; padding: .6rem .75rem; }
.answers .origin { display: block; font-size: .85rem; color: var(--muted); }
.badge-running { background: #e6edfc; color: var(--accent); border-color: #b8c8f2; }
.pager { display: flex; gap: 1rem; align-items: center; justify-content: center; margin: 1rem 0; }
.empty { color: var(--muted); }
.crumbs { margin: 0; font-size: .9rem; color: var(--muted); }
.pending { border: 2px solid #d99a2b; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
.ask { font-size: 1.05rem; }
pre.json { background: #0f1420; color: #e8ecf3; padding: .75rem; border-radius: 6px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .9rem; margin: .5rem 0 1rem; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0; }
.facts dt { color: var(--muted); font-weight: 600; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.digest { font-size: .85rem; overflow-wrap: anywhere; background: var(--wash); padding: .1rem .3rem; border-radius: 4px; }
.answer { display: flex; flex-direction: column; gap: .5rem; margin-top: 1rem; border-top: 1px solid var(--line); padding-top: 1rem; }
.decide { display: flex; flex-wrap: wrap; gap: .75rem; }
.decide button { flex: 1 1 10rem; padding: .75rem 1rem; border-radius: 6px; font-weight: 700; font-size: 1rem; }
button.approve { background: var(--ok); color: #fff; border: 2px solid var(--ok); }
button.deny { background: #fff; color: var(--bad); border: 2px solid var(--bad); }
.trace { list-style: none; padding: 0; margin: 0; }
.step { display: flex; gap: .75rem; padding: .6rem 0; border-bottom: 1px solid var(--line); }
.step:last-child { border-bottom: 0; }
.step-no { flex: 0 0 2rem; height: 2rem; border-radius: 50%; background: var(--wash); display: flex; align-items: center; justify-content: center; font-weight: 700; }
.step-body, .history, .said { min-width: 0; overflow-wrap: anywhere; }
.line { display: block; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; white-space: pre-wrap; }
.ok { color: var(--ok); font-weight: 600; }
.bad { color: var(--bad); font-weight: 600; }
.ctl { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; background: #fde68a; color: #7c2d12; border: 1px solid #d97706; border-radius: 3px; padding: 0 .15em; }
@media (max-width: 40rem) {
  table.runs thead { display: none; }
  table.runs, .runs tbody, .runs tr, .runs td { display: block; }
  .runs tr { padding: .6rem .75rem; border-bottom: 1px solid var(--line); }
  .runs tr:last-child { border-bottom: 0; }
  .runs td { border: 0; padding: .1rem 0; text-align: left; min-width: 0; }
  .runs td.run-id { font-size: .8rem; word-break: break-all; }
  .runs td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
  .table-wrap { overflow-x: visible; }
  .facts { grid-template-columns: 1fr; }
  .facts dt { margin-top: .4rem; }
  .who { margin-left: 0; }
  main { padding: .75rem; }
}
`;
