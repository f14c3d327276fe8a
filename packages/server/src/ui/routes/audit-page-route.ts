import { Hono } from 'hono';
import { html } from 'hono/html';
import { ApiError } from '../../errors/api-error.ts';
import { layout } from '../layout.ts';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { parseAuditQuery, readAuditPage } from '../../audit/read-page.ts';
import { layoutUser, pageApprover, requirePageApprover } from '../page-auth.ts';
import { auditPage } from '../pages/audit-page.ts';
import { auditWindow } from './audit-window.ts';

/** GET /audit: the newest records by default; `beforeSeq` pages to older ones and `afterSeq` to newer ones (see `auditWindow`). */
export function auditPageRoute(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/audit', requirePageApprover(services), async (c) => {
    const identity = pageApprover(c);
    const requested = parseAuditQuery(c.req.query('afterSeq'), c.req.query('limit'));
    const beforeSeq = c.req.query('beforeSeq');
    // The head is needed only for the newest page (no afterSeq, no beforeSeq).
    const newest = c.req.query('afterSeq') === undefined && beforeSeq === undefined;
    const headSeq = newest ? ((await services.gate.auditLog.head().catch(() => undefined))?.seq ?? 0) : 0;
    const window = auditWindow({ afterSeq: c.req.query('afterSeq') === undefined ? undefined : requested.afterSeq, beforeSeq, limit: requested.limit, headSeq });
    const page = await readAuditPage(services, identity.approver, window.afterSeq, window.limit);
    return c.html(auditPage({ user: layoutUser(services, identity), page, afterSeq: window.afterSeq, limit: requested.limit }));
  });
  // A call id in the audit log: its approval request's page, when it had one.
  routes.get('/calls/:proposalId', requirePageApprover(services), async (c) => {
    const identity = pageApprover(c);
    const proposalId = c.req.param('proposalId');
    const found = await services.gate.approvals.viewOfCall(proposalId);
    if (!found.ok && found.reason === 'store_unavailable') throw new ApiError('store_unavailable', 'the approval store is unavailable');
    // The request page applies eligibility: a request this approver may not decide reads as not found there.
    if (found.ok) return c.redirect(`/requests/${encodeURIComponent(found.view.request.requestId)}`, 303);
    return c.html(
      layout({
        title: 'Call without approval request',
        user: layoutUser(services, identity),
        current: 'audit',
        body: html`<div class="card"><h1>No approval request for this call</h1>
<p>This call never waited for an approver: policy allowed or denied it, or it was refused before a request was opened. Its records are in the <a href="/audit">audit log</a>.</p></div>`,
      }),
      404,
    );
  });
  return routes;
}
