import type { AuditRecord } from '@countersign/core/audit';
import { html } from 'hono/html';
import type { AuditPage } from '../../audit/read-page.ts';
import { shortDigest } from '../digest-html.ts';
import { shown, shownFragment, shownText } from '../display-html.ts';
import { clipText } from '../format.ts';
import { clippedIdHtml } from '../breakable-html.ts';
import type { Html } from '../html.ts';
import { type LayoutProps, layout } from '../layout.ts';
import { timeHtml } from '../time-html.ts';

export interface AuditPageProps {
  user: NonNullable<LayoutProps['user']>;
  page: AuditPage;
  /** The page's stretch of the chain starts after this seq. */
  afterSeq: number;
  /** Records per page, for the pager's links. */
  limit: number;
}

/** Read-only view of the hash-chained audit log, newest first, with the verdict of verifying the whole chain. */
export function auditPage(props: AuditPageProps): Html {
  const { page, afterSeq, limit } = props;
  const chain = page.chain;
  const newest = [...page.records].reverse();
  return layout({
    title: 'Audit log',
    user: props.user,
    current: 'audit',
    wide: true,
    body: html`<h1>Audit log</h1>
${
  chain.ok
    ? html`<p class="notice ok" role="status" id="chain-status">Chain status: ok — ${chain.count} record${chain.count === 1 ? '' : 's'} verified from the first to the last <span class="muted">(checked ${timeHtml(page.chainCheckedAt)})</span>.</p>`
    : html`<p class="notice error" role="alert" id="chain-status">Chain status: broken at seq ${chain.brokenAtSeq ?? '?'} (${chain.reason}). Records from there on cannot be trusted. <span class="muted">(checked ${timeHtml(page.chainCheckedAt)})</span></p>`
}
<p class="lead">Newest first. Every proposal, verdict, decision, dispatch, result and refusal, in the order it was written.</p>
${pageScope(page, afterSeq)}
${pager(page, afterSeq, limit)}
${
  newest.length === 0
    ? html`<div class="card"><p>No records here.</p></div>`
    : html`<div class="table-wrap"><table class="audit">
<caption class="sr-only">Audit records, newest first</caption>
<thead><tr><th scope="col">Seq</th><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Rule</th><th scope="col">Tool</th><th scope="col">Actor</th><th scope="col">Request · call</th><th scope="col">Arguments digest</th><th scope="col">Reason</th></tr></thead>
<tbody>${newest.map(recordRow)}</tbody>
</table></div>`
}
${pager(page, afterSeq, limit)}`,
  });
}

function recordRow(r: AuditRecord): Html {
  const detail = r.detail ?? {};
  const outcome = textOf(detail.verdict) ?? textOf(detail.decision);
  const rule = textOf(detail.ruleId);
  return html`<tr data-seq="${r.seq}">
<td data-label="Seq" class="meta">${r.seq}</td>
<td data-label="Time" class="when">${timeCell(r.at)}</td>
<td data-label="Event"><span class="event">${breakableCode(r.type)}</span>${outcome === undefined ? '' : html` <span class="badge outcome ${outcome}">${shown(outcome)}</span>`}</td>
<td data-label="Rule" class="meta">${rule === undefined ? '' : html`<code>${shown(clipText(rule, 32))}</code>`}</td>
<td data-label="Tool" class="meta">${r.toolName === undefined ? '' : html`<code>${shown(clipText(r.toolName, 32))}</code>`}</td>
<td data-label="Actor" class="words">${r.actor === undefined ? '' : clippedIdHtml(r.actor, 20, 6)}</td>
<td data-label="Request · call" class="ids">${
    r.requestId === undefined ? '' : html`<a class="mono" href="/requests/${encodeURIComponent(r.requestId)}" title="Request ${shownText(r.requestId)}">${shown(shortId(r.requestId))}</a>`
  }${
    r.callId === undefined
      ? ''
      : html`${r.requestId === undefined ? '' : html`<br>`}<span class="muted">call</span> ${
          r.proposalId === undefined
            ? html`<span class="mono">${shown(shortId(r.callId))}</span>`
            : html`<a class="mono" href="/calls/${encodeURIComponent(r.proposalId)}" title="Call ${shownText(r.callId)}">${shown(shortId(r.callId))}</a>`
        }`
  }</td>
<td data-label="Arguments digest">${r.argsDigest === undefined ? '' : html`<code class="nowrap" title="${r.argsDigest}">${shortDigest(r.argsDigest)}</code>`}</td>
<td data-label="Reason" class="words reason">${r.reason === undefined ? '' : REASON_CODE.test(r.reason) ? breakableCode(r.reason) : shown(r.reason)}</td>
</tr>`;
}

/**
 * Which records of the chain this page covers and how many of them the viewer reads: the
 * chain's count above is the whole chain, this line is the page. Records the viewer may not
 * read are counted, never described (their seqs are already missing from the rows).
 */
function pageScope(page: AuditPage, afterSeq: number): Html {
  const shownCount = page.records.length;
  const total = shownCount + page.hidden;
  if (total === 0) return html``;
  const first = afterSeq + 1;
  const last = afterSeq + total;
  const covers = first === last ? `record ${first}` : `records ${first}–${last}`;
  if (page.hidden === 0) return html`<p id="page-scope">This page covers ${covers}${total === 1 ? '' : `: all ${total} shown`}.</p>`;
  const why = `${page.hidden === 1 ? 'concerns a call' : 'concern calls'} you were not asked to decide, or ${page.hidden === 1 ? "another approver's passkey" : "other approvers' passkeys"}`;
  const counted =
    shownCount === 0
      ? `${total === 1 ? 'it is not shown: it' : `none of the ${total} shown: they`} ${why}`
      : `${shownCount} of ${total} shown; the other ${page.hidden} ${why}`;
  return html`<p id="page-scope">This page covers ${covers}: ${counted}.</p>`;
}

/**
 * Links to the neighbouring stretches of the chain: newer starts right after this page's
 * last record, older ends right before its first (`beforeSeq`), so no row is on two pages.
 */
function pager(page: AuditPage, afterSeq: number, limit: number): Html {
  return html`<nav class="pager" aria-label="Audit pages">
${page.nextAfterSeq === null ? '' : html`<a href="/audit?afterSeq=${page.nextAfterSeq}&amp;limit=${limit}" rel="prev">← Newer records</a>`}
${page.nextAfterSeq === null ? '' : html`<a href="/audit">Newest</a>`}
${afterSeq === 0 ? '' : html`<a href="/audit?beforeSeq=${afterSeq + 1}&amp;limit=${limit}" rel="next">Older records →</a>`}
</nav>`;
}

/** Long ids shortened for the table; the full id is in the link's title and on the page it opens. */
function shortId(id: string): string {
  return clipText(id, 18, 5);
}

/**
 * In the viewer's time zone with UTC on hover, like every page (`timeHtml`). The cell wraps
 * only at the spaces between date, time and zone: a line never breaks inside `2026-06-01`
 * or `14:00:00` (no break between a hyphen or colon and a digit).
 */
function timeCell(ms: number): Html {
  return timeHtml(ms);
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A reason code (`already_consumed`), as opposed to an approver's words. */
const REASON_CODE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/** A snake_case code that may wrap after its underscores (never mid-word), so a narrow column does not push the table wider than its box. */
function breakableCode(code: string): Html {
  return html`${code.split('_').map((part, i) => html`${i > 0 ? html`_<wbr>` : ''}${shownFragment(part)}`)}`;
}
