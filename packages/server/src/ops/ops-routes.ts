import type { Gate } from '@countersign/core/gate';
import { Hono } from 'hono';
import type { AppEnv } from '../app/env.ts';
import { bearerMatches } from './metrics-auth.ts';
import type { ServerMetrics } from './metrics.ts';
import { countPendingRequests } from './pending-requests.ts';

export interface OpsRouteOptions {
  gate: Gate;
  readinessTimeoutMs: number;
  /** Absent: no /metrics route. */
  metrics?: { collector: ServerMetrics; token: string | undefined } | undefined;
}

const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * Probes for orchestrators and the metrics scrape. /healthz answers from the process
 * alone (a restart would not fix the store); /readyz asks the store, so a load balancer
 * stops sending calls that could only fail with store_unavailable.
 */
export function opsRoutes(options: OpsRouteOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const probe = async () => {
    const result = await options.gate.probeStore(options.readinessTimeoutMs);
    options.metrics?.collector.setStoreUp(result.ok);
    return result;
  };

  app.get('/healthz', (c) => c.json({ status: 'ok' }, 200, NO_STORE));

  app.get('/readyz', async (c) => {
    const result = await probe();
    if (result.ok) return c.json({ status: 'ready' }, 200, NO_STORE);
    return c.json({ status: 'not_ready', reason: result.reason }, 503, NO_STORE);
  });

  const metrics = options.metrics;
  if (metrics !== undefined) {
    app.get('/metrics', async (c) => {
      if (metrics.token !== undefined && !bearerMatches(c.req.header('authorization'), metrics.token)) {
        return c.json({ error: { code: 'unauthenticated', message: 'the metrics endpoint needs its bearer token' } }, 401, {
          ...NO_STORE,
          'WWW-Authenticate': 'Bearer',
        });
      }
      // The backlog is read only from a store that answered the probe: a down store fails fast.
      if ((await probe()).ok) {
        const pending = await countPendingRequests(options.gate, options.readinessTimeoutMs);
        if (pending !== undefined) metrics.collector.setPendingRequests(pending);
      }
      return c.body(await metrics.collector.registry.metrics(), 200, { ...NO_STORE, 'Content-Type': metrics.collector.registry.contentType });
    });
  }
  return app;
}
