import { html } from 'hono/html';
import type { AuditPage } from '../../audit/read-page.ts';
import { shown } from '../display-html.ts';
import { formatTime } from '../format.ts';
import type { Html } from '../html.ts';
import { type LayoutProps, layout } from '../layout.ts';

export interface AuditPageProps {
  user: NonNullable<LayoutProps['user']>;
  page: AuditPage;
  afterSeq: number;
  limit: number;
}

/** Read-only view of the hash-chained audit log, with the verdict of verifying the whole chain. */
export function auditPage(props: AuditPageProps): Html {
  const { page, afterSeq, limit } = props;
  const chain = page.chain;
  const earlier = afterSeq > 0 ? Math.max(0, afterSeq - limit) : undefined;
  return layout({
    title: 'Audit log',
    user: props.user,
    current: 'audit',
    body: html`<h1>Audit log</h1>
${
  chain.ok
    ? html`<p class="notice ok" role="status" id="chain-status">Chain status: ok — ${chain.count} record${chain.count === 1 ? '' : 's'} verified from the first to the last <span class="muted">(checked ${formatTime(page.chainCheckedAt)})</span>.</p>`
    : html`<p class="notice error" role="alert" id="chain-status">Chain status: broken at seq ${chain.brokenAtSeq ?? '?'} (${chain.reason}). Records from there on cannot be trusted. <span class="muted">(checked ${formatTime(page.chainCheckedAt)})</span></p>`
}
${
  page.records.length === 0
    ? html`<div class="card"><p>No records here.</p></div>`
    : html`<div class="table-wrap"><table>
<caption class="sr-only">Audit records</caption>
<thead><tr><th scope="col">Seq</th><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Tool</th><th scope="col">Actor</th><th scope="col">Request</th><th scope="col">Arguments digest</th><th scope="col">Reason</th></tr></thead>
<tbody>${page.records.map(
        (r) => html`<tr>
<td>${r.seq}</td>
<td class="nowrap">${formatTime(r.at)}</td>
<td>${r.type}${decisionOf(r.detail)}</td>
<td>${r.toolName === undefined ? '' : html`<code>${shown(r.toolName)}</code>`}</td>
<td class="text">${r.actor === undefined ? '' : shown(r.actor)}</td>
<td class="mono">${r.requestId === undefined ? '' : shown(r.requestId)}</td>
<td class="mono">${r.argsDigest ?? ''}</td>
<td class="text">${r.reason === undefined ? '' : shown(r.reason)}</td>
</tr>`,
      )}</tbody>
</table></div>`
}
<nav class="pager" aria-label="Audit pages">
${earlier === undefined ? '' : html`<a href="/audit?afterSeq=${earlier}&amp;limit=${limit}">Earlier records</a>`}
${page.nextAfterSeq === null ? '' : html`<a href="/audit?afterSeq=${page.nextAfterSeq}&amp;limit=${limit}">Later records</a>`}
</nav>`,
  });
}

function decisionOf(detail: unknown): string {
  if (typeof detail !== 'object' || detail === null) return '';
  const decision = (detail as Record<string, unknown>).decision;
  return typeof decision === 'string' ? ` (${decision})` : '';
}
