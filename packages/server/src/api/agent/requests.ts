import type { Agent } from '@countersign/core/gate';
import { isAboutRequest, watchEvents } from '@countersign/core/events';
import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { agentOf } from '../../auth/agent-of.ts';
import { requireAgent } from '../../auth/require-identity.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { ApprovalView } from '../../views/request-views.ts';
import { readRequest } from './read-request.ts';
import { requestEventsRoute } from './request-events.ts';

/**
 * GET /requests/:id (optionally `?wait=N`, a long-poll that returns as soon as the
 * request leaves pending), GET /requests/:id/token, GET /requests/:id/events.
 */
export function requestRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const agentOnly = requireAgent(services);

  routes.get('/requests/:id', agentOnly, async (c) => {
    const requestId = c.req.param('id');
    const waitSeconds = parseWait(c.req.query('wait'), services.tuning.maxWaitSeconds);
    const signal = AbortSignal.any([c.req.raw.signal, services.closing]);
    return c.json(await waitWhilePending(services, agentOf(c), requestId, waitSeconds * 1000, signal));
  });

  routes.get('/requests/:id/token', agentOnly, async (c) => {
    const issued = await services.gate.approvals.token(c.req.param('id'), agentOf(c));
    if (issued.ok) return c.json({ token: issued.token, requestId: issued.requestId, expiresAt: issued.expiresAt });
    switch (issued.reason) {
      case 'not_found':
        throw new ApiError('not_found', 'no such approval request');
      case 'not_approved':
        throw new ApiError('not_approved', `the request is ${issued.status ?? 'not approved'}`, { requestStatus: issued.status });
      case 'store_unavailable':
        throw new ApiError('store_unavailable', 'the approval store is unavailable');
    }
  });

  routes.get('/requests/:id/events', agentOnly, requestEventsRoute(services));
  return routes;
}

function parseWait(raw: string | undefined, max: number): number {
  if (raw === undefined || raw === '') return 0;
  if (!/^\d{1,4}$/.test(raw)) throw new ApiError('invalid_request', 'wait must be a whole number of seconds');
  return Math.min(Number(raw), max);
}

/** Re-reads the ledger on every gate event about the request and at the poll interval, until not pending or out of time. */
async function waitWhilePending(services: Services, agent: Agent, requestId: string, waitMs: number, signal: AbortSignal): Promise<ApprovalView> {
  const deadline = Date.now() + waitMs;
  // Watching starts before the first read, so a decision right after a read still wakes us.
  const watch = watchEvents(services.gate.events, isAboutRequest(requestId));
  try {
    for (;;) {
      const view = await readRequest(services, agent, requestId);
      const remaining = deadline - Date.now();
      if (view.status !== 'pending' || remaining <= 0) return view;
      const wake = await watch.next(Math.min(services.tuning.pollIntervalMs, remaining), signal);
      if (wake === 'aborted') return view;
    }
  } finally {
    watch.close();
  }
}
