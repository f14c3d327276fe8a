import type { ApprovalStatus } from '@countersign/core/ledger';
import { html } from 'hono/html';
import { clippedIdHtml } from '../breakable-html.ts';
import { RequestStatusFilter } from '../../api/schemas.ts';
import type { ApprovalView } from '../../views/request-views.ts';
import { isFlagged, shown, shownText } from '../display-html.ts';
import { clipText, formatTime, relativeTo } from '../format.ts';
import type { Html } from '../html.ts';
import { type LayoutProps, layout } from '../layout.ts';
import { type CallSummary, callSummaries } from '../summary/call-summary.ts';
import { summaryHtml } from '../summary/summary-html.ts';

// Every status the API filters by: a status added there gets its own link here.
const FILTERS: readonly ApprovalStatus[] = RequestStatusFilter.options;
/** A rule description in the list is a reminder; the request page has it in full. */
const MAX_LISTED_DESCRIPTION = 120;

export interface PendingPageProps {
  user: NonNullable<LayoutProps['user']>;
  status: ApprovalStatus;
  /** Newest first, already filtered by `tool`. */
  approvals: ApprovalView[];
  /** Every tool on the unfiltered list, for the filter. */
  tools: string[];
  tool: string | undefined;
  now: number;
  /** Fingerprint of the listing this page shows: the live script asks the server for changes since it. */
  version: string;
}

export function pendingPage(props: PendingPageProps): Html {
  const { status, now, tool } = props;
  const summaries = callSummaries(props.approvals);
  const who = whoColumn(props.approvals);
  const rows = props.approvals.map((a) => row(a, summaries.get(a.requestId), now, who));
  const query = (s: string) => `/?status=${encodeURIComponent(s)}${tool === undefined ? '' : `&tool=${encodeURIComponent(shownText(tool))}`}`;
  return layout({
    title: status === 'pending' ? 'Pending approvals' : `${status} requests`,
    user: props.user,
    current: 'pending',
    wide: true,
    body: html`<h1>${status === 'pending' ? 'Waiting for your decision' : `Requests: ${status}`}</h1>
<p class="lead">Requests you are eligible to decide, newest first. Open one to see the exact call before you approve it.</p>
<nav class="filters" aria-label="Filter by status">${FILTERS.map((f) => html`<a href="${query(f)}"${f === status ? html` aria-current="page"` : ''}>${f}</a>`)}</nav>
<form class="tool-filter" method="get" action="/">
<input type="hidden" name="status" value="${status}">
<label for="tool-filter">Tool</label>
<select id="tool-filter" name="tool"><option value="">all tools</option>${props.tools.map(
      (t) => html`<option value="${shownText(t)}"${t === tool ? html` selected` : ''}>${shownText(t)}</option>`,
    )}</select>
<button class="secondary" type="submit">Filter</button>
</form>
<p class="live-line"><span id="live-status" role="status" aria-live="polite"></span> <a href="${query(status)}" id="refresh-link">Refresh</a></p>
<section id="requests" data-live="/events/approvals?status=${encodeURIComponent(status)}&amp;version=${props.version}" aria-label="${status} approval requests">
${
  rows.length === 0
    ? html`<div class="card"><p>No ${status} requests${tool === undefined ? '' : html` for <code>${shown(tool)}</code>`}.</p></div>`
    : html`<div class="table-wrap"><table class="requests">
<caption class="sr-only">${status} approval requests</caption>
<thead><tr><th scope="col">Tool</th><th scope="col">Arguments</th><th scope="col">Why asked</th><th scope="col" id="who-header">${who.header}</th><th scope="col">Requested</th><th scope="col">Expires</th><th scope="col">Approvals</th><th scope="col">Status</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}
</section>`,
  });
}

/**
 * The column naming who a row acts for holds two kinds of value: a call's principal (the user it acts for)
 * and a definition review's registering agent. The desktop header names what the rows hold; when both kinds
 * are listed, a review's cell says "registered by" itself so it is not read as a principal.
 */
interface WhoColumn {
  header: string;
  /** Both kinds on one page: a review's cell carries its own label on a wide screen. */
  mixed: boolean;
}

function whoColumn(approvals: readonly ApprovalView[]): WhoColumn {
  const reviews = approvals.filter((a) => a.review !== undefined).length;
  if (reviews === 0) return { header: 'Principal', mixed: false };
  if (reviews === approvals.length) return { header: 'Registered by', mixed: false };
  return { header: 'Principal / registered by', mixed: true };
}

function row(a: ApprovalView, summary: CallSummary | undefined, now: number, who: WhoColumn): Html {
  return html`<tr data-request="${a.requestId}">
<td data-label="Tool"><a href="/requests/${encodeURIComponent(a.requestId)}">${toolLabel(a)}</a>${flag(a)}</td>
<td data-label="Arguments" class="summary">${summaryHtml(summary)}</td>
<td data-label="Why asked" class="text">${whyHtml(a)}</td>
<td data-label="${a.review === undefined ? 'Principal' : 'Registered by'}" class="text id">${principalCell(a, who)}</td>
<td data-label="Requested" class="meta"><span title="${formatTime(a.createdAt)}">${relativeTo(a.createdAt, now)}</span></td>
<td data-label="Expires" class="meta">${a.status === 'pending' || a.status === 'approved' ? html`<span title="${formatTime(a.expiresAt)}">${relativeTo(a.expiresAt, now)}</span>` : html`<span class="muted">closed</span>`}</td>
<td data-label="Approvals" class="meta">${a.approvals} of ${a.requiredApprovals}</td>
<td data-label="Status" class="meta"><span class="badge ${a.status}">${a.status}</span></td>
</tr>`;
}

function whyHtml(a: ApprovalView): Html | string {
  if (a.ruleId === undefined && a.ruleDescription === undefined) return '';
  const cut = a.ruleDescription === undefined ? undefined : clipText(a.ruleDescription, MAX_LISTED_DESCRIPTION);
  return html`${a.ruleId === undefined ? '' : html`<code class="rule">${shown(clipText(a.ruleId, 40))}</code>`}${cut === undefined ? '' : html` <span class="rule-description">${shown(cut)}</span>`}`;
}

/** Seen in the list already: this call needs a closer look than its name suggests. */
function flag(a: ApprovalView): Html | string {
  if (!isFlagged(a.display)) return '';
  const what = [
    a.display.findings.length > 0 ? 'hidden or look-alike characters' : undefined,
    a.display.inputSchema.problems.length > 0 ? 'arguments outside the tool schema' : undefined,
  ].filter((w) => w !== undefined);
  return html` <span class="badge flagged" title="${what.join('; ')}">check: ${what.join(', ')}</span>`;
}

/** The user a call acts for; for a definition review, the agent that registered the definition (not the review's internal principal). */
function principalCell(a: ApprovalView, who: WhoColumn): Html {
  if (a.review === undefined) return clippedIdHtml(a.call.principal, 48, 8);
  // On a phone the cell's data-label already says "Registered by"; the inline label is for the shared desktop header.
  const label = who.mixed ? html`<span class="wide-only">registered by </span>` : '';
  return a.review.registeredBy === undefined
    ? html`${label}<span class="muted">its server</span>`
    : html`${label}agent ${clippedIdHtml(a.review.registeredBy, 40, 6)}`;
}

/** A definition review is listed by the tool whose definition changed, not by its internal review call. */
function toolLabel(a: ApprovalView): Html {
  return a.review === undefined
    ? html`<code>${shown(clipText(a.call.toolName, 40))}</code>`
    : html`new definition of <code>${shown(clipText(a.review.toolName, 40))}</code>`;
}
