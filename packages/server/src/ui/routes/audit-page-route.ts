import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { parseAuditQuery, readAuditPage } from '../../audit/read-page.ts';
import { layoutUser, pageApprover, requirePageApprover } from '../page-auth.ts';
import { auditPage } from '../pages/audit-page.ts';

/** GET /audit: the newest records by default; `afterSeq` pages through older ones. */
export function auditPageRoute(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/audit', requirePageApprover(services), async (c) => {
    const identity = pageApprover(c);
    const requested = parseAuditQuery(c.req.query('afterSeq'), c.req.query('limit'));
    let afterSeq = requested.afterSeq;
    if (c.req.query('afterSeq') === undefined) {
      const head = await services.gate.auditLog.head().catch(() => undefined);
      afterSeq = Math.max(0, (head?.seq ?? 0) - requested.limit);
    }
    const page = await readAuditPage(services, afterSeq, requested.limit);
    return c.html(auditPage({ user: layoutUser(services, identity), page, afterSeq, limit: requested.limit }));
  });
  return routes;
}
