import { Id } from '@countersign/core/wire';
import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { agentOf } from '../../auth/agent-of.ts';
import { requireAgent } from '../../auth/require-identity.ts';
import { ApiError } from '../../errors/api-error.ts';

/**
 * GET /calls/:proposalId: where one of the agent's calls stands (proposed, dispatched,
 * succeeded, failed), so a runtime that lost an authorize answer or crashed can tell
 * "ran, result unknown" from "never ran". Another agent's call is a 404.
 */
export function callRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/calls/:proposalId', requireAgent(services), async (c) => {
    const proposalId = c.req.param('proposalId');
    if (!Id.safeParse(proposalId).success) throw new ApiError('not_found', 'no such call');
    const status = await services.gate.callStatus(proposalId, agentOf(c));
    if (status.ok) return c.json(status.call);
    if (status.reason === 'store_unavailable') throw new ApiError('store_unavailable', 'the approval store is unavailable');
    throw new ApiError('not_found', 'no such call');
  });
  return routes;
}
