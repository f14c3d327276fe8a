import type { ApprovalStatus } from '@countersign/core/ledger';
import { html } from 'hono/html';
import type { ApprovalView } from '../../views/request-views.ts';
import { isFlagged, shown } from '../display-html.ts';
import { formatTime, relativeTo } from '../format.ts';
import type { Html } from '../html.ts';
import { type LayoutProps, layout } from '../layout.ts';

const FILTERS: ApprovalStatus[] = ['pending', 'approved', 'denied', 'consumed', 'expired', 'revoked'];

export interface PendingPageProps {
  user: NonNullable<LayoutProps['user']>;
  status: ApprovalStatus;
  approvals: ApprovalView[];
  now: number;
}

export function pendingPage(props: PendingPageProps): Html {
  const { status, now } = props;
  const rows = props.approvals.map(
    (a) => html`<tr>
<td><a href="/requests/${encodeURIComponent(a.requestId)}">${toolLabel(a)}</a>${flag(a)}</td>
<td class="text">${shown(a.call.principal)}</td>
<td><span title="${formatTime(a.createdAt)}">${relativeTo(a.createdAt, now)}</span></td>
<td><span title="${formatTime(a.expiresAt)}">${relativeTo(a.expiresAt, now)}</span></td>
<td>${a.approvals} of ${a.requiredApprovals}</td>
<td><span class="badge ${a.status}">${a.status}</span></td>
</tr>`,
  );
  return layout({
    title: status === 'pending' ? 'Pending approvals' : `${status} requests`,
    user: props.user,
    current: 'pending',
    body: html`<h1>${status === 'pending' ? 'Waiting for your decision' : `Requests: ${status}`}</h1>
<p class="lead">Requests you are eligible to decide. Open one to see the exact call before you approve it.</p>
<p class="filters">${FILTERS.map(
      (f) => html`<a href="/?status=${f}"${f === status ? html` aria-current="page"` : ''}>${f}</a>`,
    )}</p>
${
  rows.length === 0
    ? html`<div class="card"><p>No ${status} requests.</p></div>`
    : html`<div class="table-wrap"><table>
<caption class="sr-only">${status} approval requests</caption>
<thead><tr><th scope="col">Tool</th><th scope="col">Principal</th><th scope="col">Requested</th><th scope="col">Expires</th><th scope="col">Approvals</th><th scope="col">Status</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}`,
  });
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

/** A definition review is listed by the tool whose definition changed, not by its internal review call. */
function toolLabel(a: ApprovalView): Html {
  return a.review === undefined
    ? html`<code>${shown(a.call.toolName)}</code>`
    : html`new definition of <code>${shown(a.review.toolName)}</code>`;
}
