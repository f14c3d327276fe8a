import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { approverOf } from '../../auth/approver-of.ts';
import { requireApprover } from '../../auth/require-identity.ts';
import { eligibleView } from '../../approvals/eligible-view.ts';
import { ApiError } from '../../errors/api-error.ts';
import { validate } from '../../http/validate.ts';
import { approvalView } from '../../views/request-views.ts';
import { RequestStatusFilter } from '../schemas.ts';

/** GET /approvals?status=&limit= and GET /approvals/:id: only requests the caller may decide. */
export function approvalRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const approverOnly = requireApprover(services);

  routes.get('/approvals', approverOnly, async (c) => {
    const status = validate(RequestStatusFilter.default('pending'), c.req.query('status') || undefined);
    const limitRaw = c.req.query('limit');
    if (limitRaw !== undefined && !/^\d{1,4}$/.test(limitRaw)) throw new ApiError('invalid_request', 'limit must be 1-1000');
    const limit = Math.min(Math.max(Number(limitRaw ?? 100), 1), 1000);
    const listed = await services.gate.approvals.listFor(approverOf(c), status, limit);
    if (!listed.ok) throw new ApiError('store_unavailable', 'the approval store is unavailable');
    const views = listed.views;
    return c.json({ approvals: await Promise.all(views.map((v) => approvalView(services.gate, v))) });
  });

  routes.get('/approvals/:id', approverOnly, async (c) => {
    const view = await eligibleView(services, approverOf(c), c.req.param('id'));
    return c.json(await approvalView(services.gate, view));
  });
  return routes;
}
