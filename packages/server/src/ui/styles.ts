/** The one stylesheet, served from /assets/style.css (no inline styles: the CSP forbids them). */
export const STYLESHEET = `
:root {
  --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --paper: #ffffff; --wash: #f6f8fa;
  --accent: #0b5cad; --ok: #116329; --ok-wash: #dafbe1; --bad: #a40e26; --bad-wash: #ffebe9;
  --warn: #7d4e00; --warn-wash: #fff8c5;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 16px; line-height: 1.5; color: var(--ink); background: var(--wash);
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, textarea:focus-visible, summary:focus-visible {
  outline: 3px solid #fd8c73; outline-offset: 2px;
}
.skip, .sr-only { position: absolute; left: -9999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--paper); padding: .5rem; z-index: 1; }
header.top { background: var(--ink); color: #fff; }
header.top .bar { max-width: 64rem; margin: 0 auto; padding: .6rem 1.25rem; display: flex; gap: 1.5rem; align-items: center; flex-wrap: wrap; }
header.top .brand { font-weight: 700; letter-spacing: .02em; color: #fff; text-decoration: none; margin-right: auto; }
header.top nav a { color: #fff; margin-right: 1rem; }
header.top .who { color: #c9d1d9; font-size: .9rem; }
header.top form { display: inline; margin: 0; }
header.top button { background: transparent; color: #fff; border: 1px solid #8b949e; padding: .2rem .7rem; border-radius: 4px; cursor: pointer; font: inherit; font-size: .9rem; }
main { max-width: 64rem; margin: 1.5rem auto 3rem; padding: 0 1.25rem; }
h1 { font-size: 1.6rem; margin: 0 0 .75rem; }
h2 { font-size: 1.15rem; margin: 1.75rem 0 .6rem; }
.card { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 1.25rem 1.5rem; margin-bottom: 1.25rem; }
.card > h2:first-child, .card > h1:first-child { margin-top: 0; }
.lead { color: var(--muted); margin-top: 0; }
.muted { color: var(--muted); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; font-size: .9rem; }
.mono { overflow-wrap: anywhere; }
p.hint code { white-space: nowrap; } /* a command keeps its "--flags" on one line */
pre.args { background: #0d1117; color: #e6edf3; padding: 1rem 1.25rem; border-radius: 6px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; margin: .5rem 0 0; }
.side-by-side { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: 1rem; }
dl.facts { display: grid; grid-template-columns: fit-content(16rem) minmax(0, 1fr); gap: .35rem 1.25rem; margin: 0; }
dl.facts dt { color: var(--muted); overflow-wrap: anywhere; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table { width: 100%; border-collapse: collapse; background: var(--paper); }
th, td { text-align: left; padding: .55rem .75rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .85rem; color: var(--muted); font-weight: 600; background: var(--wash); }
td.mono { font-size: .8rem; }
.table-wrap { border: 1px solid var(--line); border-radius: 8px; overflow-x: auto; }
.badge { display: inline-block; padding: .05rem .55rem; border-radius: 999px; font-size: .8rem; font-weight: 600; border: 1px solid transparent; }
.badge.pending { background: var(--warn-wash); color: var(--warn); border-color: #d4a72c; }
.badge.approved, .badge.consumed { background: var(--ok-wash); color: var(--ok); border-color: #4ac26b; }
.badge.denied, .badge.expired, .badge.revoked { background: var(--bad-wash); color: var(--bad); border-color: #ff8182; }
.notice { border-radius: 6px; padding: .75rem 1rem; margin-bottom: 1rem; border: 1px solid; }
.notice.error { background: var(--bad-wash); color: var(--bad); border-color: #ff8182; }
.notice.ok { background: var(--ok-wash); color: var(--ok); border-color: #4ac26b; }
.notice.info { background: var(--warn-wash); color: var(--warn); border-color: #d4a72c; }
.actions { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); align-items: start; }
.actions form, .actions details { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; margin: 0; }
.actions details { grid-column: 1 / -1; }
.actions details form { border: 0; padding: 0; background: transparent; }
.nowrap { white-space: nowrap; }
summary { cursor: pointer; font-weight: 600; }
label { display: block; font-weight: 600; margin: .5rem 0 .25rem; }
input[type=text], input[type=password], textarea { width: 100%; padding: .5rem .6rem; border: 1px solid #8c959f; border-radius: 6px; font: inherit; background: #fff; color: var(--ink); }
textarea { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; min-height: 12rem; }
button.primary, button.danger, button.secondary { font: inherit; font-weight: 600; padding: .55rem 1.1rem; border-radius: 6px; cursor: pointer; border: 1px solid; margin-top: .75rem; }
button.primary { background: #1f883d; color: #fff; border-color: #1a7f37; }
button.danger { background: #fff; color: var(--bad); border-color: #cf222e; }
button.secondary { background: #fff; color: var(--accent); border-color: var(--accent); }
.hint { color: var(--muted); font-size: .9rem; margin: .25rem 0 0; }
.decisions { list-style: none; padding: 0; margin: 0; }
.decisions li { padding: .4rem 0; border-bottom: 1px solid var(--line); }
.decisions li:last-child { border-bottom: 0; }
.filters { display: flex; flex-wrap: wrap; gap: .25rem .9rem; }
.filters a[aria-current=page] { font-weight: 700; color: var(--ink); text-decoration: none; }
.pager { display: flex; gap: 1rem; margin-top: 1rem; }
.login { max-width: 24rem; margin: 4rem auto; }
/* Escapes stand for characters a reader could not see or tell apart: they must never pass for text. */
.esc { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; font-weight: 700; background: #ffebe9; color: #a40e26; border: 1px solid #cf222e; border-radius: 3px; padding: 0 .15em; margin: 0 .05em; white-space: nowrap; }
pre.args .esc { background: #ffd33d; color: #1b1f24; border-color: #ffd33d; }
.flag { background: var(--bad-wash); color: var(--bad); border: 2px solid #cf222e; border-left-width: .5rem; border-radius: 6px; padding: .75rem 1rem; margin-bottom: 1rem; overflow-wrap: anywhere; }
.flag h2 { font-size: 1.05rem; margin: 0 0 .4rem; }
.flag p { margin: .25rem 0; color: var(--ink); }
.flag ul { margin: .4rem 0 0; padding-left: 1.25rem; color: var(--ink); }
.flag li { margin: .2rem 0; }
.badge.flagged { display: inline-block; min-width: 9rem; margin-top: .3rem; border-radius: 6px; background: var(--bad-wash); color: var(--bad); border-color: #cf222e; white-space: normal; }
td.text { overflow-wrap: anywhere; }
td code { overflow-wrap: break-word; }
main.wide, body.wide header.top .bar { max-width: 90rem; }
h1, h2, h3 { overflow-wrap: anywhere; }
h3 { font-size: 1rem; margin: 1.25rem 0 .4rem; }
header.top .who { overflow-wrap: anywhere; }
td.summary { min-width: 14rem; overflow-wrap: anywhere; }
table.requests td.text { min-width: 9rem; overflow-wrap: anywhere; }
/* The edit form's fields: label above input, full width on a phone, the problem right under the field. */
.edit-fields { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; margin: 0 0 .75rem; min-width: 0; }
.edit-fields .field { margin: .4rem 0; }
.edit-fields label { display: block; font-weight: 600; overflow-wrap: anywhere; }
.edit-fields input, .edit-fields select { width: 100%; max-width: 28rem; box-sizing: border-box; padding: .5rem .6rem; border: 1px solid #8c959f; border-radius: 6px; font: inherit; background: #fff; color: var(--ink); }
.field-error { display: block; color: var(--bad); font-size: .85rem; min-height: 0; }
textarea[aria-invalid="true"], input[aria-invalid="true"] { border-color: var(--bad); border-width: 2px; }
[aria-invalid=true] { border-color: var(--bad); outline-color: var(--bad); }
/* Identifiers (principals, actors) wrap only at their separators (<wbr>), never mid-word; a part
   longer than the cell still breaks rather than widen the table. Cut short, the whole value
   shows on hover (title) and on tap or focus. */
table.requests td.id, .id-text { overflow-wrap: break-word; word-break: normal; }
.id-text.clipped { cursor: help; border-bottom: 1px dotted var(--muted); }
.id-text.clipped .full, .id-text.clipped:focus .short { display: none; }
.id-text.clipped:focus .full { display: inline; }
td.meta { white-space: nowrap; }
.badge { white-space: nowrap; }
td.time { white-space: nowrap; }
/* The state of a request, in one banner that says what happened to the call. */
.state { border-radius: 6px; padding: .75rem 1rem; margin-bottom: 1rem; border: 1px solid; border-left-width: .5rem; overflow-wrap: anywhere; }
.state strong { display: block; font-size: 1.05rem; }
.state.wait { background: var(--warn-wash); color: var(--warn); border-color: #d4a72c; }
.state.ok { background: var(--ok-wash); color: var(--ok); border-color: #4ac26b; }
.state.stop { background: var(--bad-wash); color: var(--bad); border-color: #cf222e; }
.state.neutral { background: var(--wash); color: var(--ink); border-color: #8c959f; }
.badge.edited { background: var(--wash); color: var(--ink); border-color: #8c959f; }
/* Arguments, one value a row; a value outside the schema or hiding characters is marked where it is. */
dl.args-list .arg { display: contents; }
dl.args-list dt { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; color: var(--ink); }
dl.args-list dd .value { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .95rem; font-weight: 600; white-space: pre-wrap; }
dl.args-list .arg.unusual > dt, dl.args-list .arg.unusual > dd { background: var(--bad-wash); }
dl.args-list .arg.unusual > dt { color: var(--bad); font-weight: 700; border-left: .35rem solid #cf222e; padding-left: .4rem; }
.why-unusual { display: block; }
.why-unusual .tag { display: inline-block; margin: .2rem .3rem 0 0; padding: 0 .4rem; border-radius: 4px; background: #cf222e; color: #fff; font-size: .8rem; font-weight: 600; overflow-wrap: anywhere; }
/* The agent's words: set apart (dashed, grey, quoted) so they never read as the page's own. */
.card.agent-words { background: var(--wash); border-style: dashed; border-color: #8c959f; }
.agent-words blockquote { margin: .5rem 0 0; padding: .6rem .9rem; border-left: .3rem solid #8c959f; background: var(--paper); white-space: pre-wrap; overflow-wrap: anywhere; font-style: italic; }
ul.who { margin: .25rem 0 0; padding-left: 1.25rem; }
/* Digests: short form, the full value one tap away (selectable), a Copy button when the script runs. */
.digest { display: inline-flex; flex-wrap: wrap; align-items: flex-start; gap: .25rem .5rem; max-width: 100%; }
.digest details { min-width: 0; max-width: 100%; }
.digest summary { font-weight: 400; }
.digest summary code { font-size: .85rem; }
code.digest-full { display: block; overflow-wrap: anywhere; font-size: .8rem; user-select: all; }
.digest details:not([open]) code.digest-full { display: none; }
button.copy { font: inherit; font-size: .8rem; padding: .05rem .5rem; border-radius: 4px; border: 1px solid var(--accent); background: #fff; color: var(--accent); cursor: pointer; }
/* The list: filters, a one-line summary of each call, why it was asked. */
.tool-filter { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
.tool-filter label { margin: 0; }
.tool-filter select { font: inherit; padding: .3rem .4rem; max-width: 100%; min-width: 0; }
.tool-filter button.secondary { margin-top: 0; padding: .3rem .9rem; }
.live-line { margin: .25rem 0 .75rem; font-size: .9rem; }
.call-summary { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
.call-summary .key { color: var(--muted); }
.rule-description { display: block; color: var(--muted); font-size: .85rem; }
.badge.outcome { font-weight: 600; }
.badge.allow, .badge.approve { background: var(--ok-wash); color: var(--ok); border-color: #4ac26b; }
.badge.deny { background: var(--bad-wash); color: var(--bad); border-color: #ff8182; }
.ids a { white-space: nowrap; }
/* The request page's first screen: the call in one line, where approvals stand, the buttons. */
.decide-first { border-width: 2px; border-color: #8c959f; padding: 1rem 1.25rem; }
.decide-first p { margin: 0 0 .5rem; overflow-wrap: anywhere; }
.summary-line code { font-weight: 700; }
.decide-now { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; }
.decide-now form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: 0; }
.decide-now button { margin-top: 0; }
.decide-now input[type=text] { width: auto; flex: 1 1 12rem; min-width: 0; }
.deny-form { flex: 1 1 18rem; }
.progress .badge { margin-right: .25rem; }
/* The audit table fits its box: text breaks between words (ids and digests are shortened, full value in their title). */
table.audit td.words { overflow-wrap: break-word; min-width: 5rem; }
table.audit td.reason { min-width: 9rem; }
table.audit th, table.audit td { padding: .5rem .55rem; }
/* Diffs: additions green and underlined, removals red and struck (and +/- in a schema), readable without colour. */
ins { background: var(--ok-wash); color: var(--ok); text-decoration: underline; font-weight: 600; }
del { background: var(--bad-wash); color: var(--bad); }
pre.args ins { background: #1f6f3a; color: #fff; text-decoration: none; display: inline; }
pre.args del { background: #8e1519; color: #fff; }
.diff { overflow-wrap: anywhere; }
ul.changes { margin: .25rem 0 0; padding-left: 1.25rem; overflow-wrap: anywhere; }
ul.changes li { margin: .2rem 0; }
/* On a phone the label column would squeeze values into a few characters a line: stack them. */
@media (max-width: 40rem) {
  dl.facts { grid-template-columns: minmax(0, 1fr); gap: 0; }
  dl.facts dd { margin-bottom: .5rem; }
  .card { padding: 1rem; }
  main { padding: 0 .75rem; }
  header.top .bar { gap: .25rem 1rem; padding: .5rem .75rem; }
  /* Tables become one card per row, each value under its column's name. */
  .table-wrap { overflow-x: visible; }
  table.requests, table.audit, table.requests tbody, table.audit tbody, table.requests tr, table.audit tr, table.requests td, table.audit td { display: block; width: 100%; }
  table.requests thead, table.audit thead { display: none; }
  table.requests tr, table.audit tr { border-bottom: 2px solid var(--line); padding: .4rem 0; }
  table.requests td, table.audit td { border: 0; padding: .15rem .75rem; }
  table.requests td::before, table.audit td::before { content: attr(data-label); display: block; font-size: .75rem; color: var(--muted); font-weight: 600; }
  table.requests td:empty, table.audit td:empty { display: none; }
  td.time, .ids a, td.nowrap, td.meta { white-space: normal; }
  table.requests td.meta, table.audit td.meta { display: inline-block; width: auto; margin-right: 1rem; vertical-align: top; }
  td.summary, table.requests td.text { min-width: 0; }
  .wide-only { display: none; }
}
`;
