import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { parseAuditQuery, readAuditPage } from '../../audit/read-page.ts';
import { approverOf } from '../../auth/approver-of.ts';
import { requireApprover } from '../../auth/require-identity.ts';

/** GET /audit?afterSeq=&limit=: the audit records this approver may read (an auditor: all) and whether the whole chain verifies. */
export function auditRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/audit', requireApprover(services), async (c) => {
    const { afterSeq, limit } = parseAuditQuery(c.req.query('afterSeq'), c.req.query('limit'));
    return c.json(await readAuditPage(services, approverOf(c), afterSeq, limit));
  });
  return routes;
}
