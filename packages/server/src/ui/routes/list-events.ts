import { type DeliveredEvent, watchEvents } from '@countersign/core/events';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { RequestStatusFilter } from '../../api/schemas.ts';
import { readListingVersion } from '../listing.ts';
import { pageApprover, requirePageApprover } from '../page-auth.ts';

/**
 * Events that can change a listing: anything about a request (opened, decided, edited,
 * revoked, consumed) and a resync. Allowed calls, which never open a request, do not wake
 * the stream; expiry is a matter of time and is caught by the periodic re-read.
 */
function changesListings(event: DeliveredEvent): boolean {
  return event.type === 'resync' || ('requestId' in event && event.requestId !== undefined);
}

/**
 * GET /events/approvals?status=&version=: a server-sent event stream for the list page's
 * script. It sends `changed` once the approver's listing differs from `version` (the one
 * the page was rendered with), then ends; the script reloads the list and reconnects with
 * the new version. Woken by the gate's events, with a store re-read at the poll interval
 * for decisions made on other replicas; heartbeat comments while idle.
 */
export function listEventsRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/events/approvals', requirePageApprover(services), async (c) => {
    const approver = pageApprover(c).approver;
    const parsed = RequestStatusFilter.safeParse(c.req.query('status') || 'pending');
    const status = parsed.success ? parsed.data : 'pending';
    const since = c.req.query('version') ?? '';
    const watch = watchEvents(services.gate.events, changesListings);
    const signal = AbortSignal.any([c.req.raw.signal, services.closing]);
    return streamSSE(c, async (stream) => {
      const aborted = new AbortController();
      stream.onAbort(() => aborted.abort());
      const stop = AbortSignal.any([signal, aborted.signal]);
      let lastWrite = Date.now();
      try {
        for (;;) {
          let version: string;
          try {
            version = await readListingVersion(services, approver, status);
          } catch {
            await stream.writeSSE({ event: 'unavailable', data: 'store_unavailable' });
            return;
          }
          if (version !== since) {
            await stream.writeSSE({ event: 'changed', data: version });
            return;
          }
          if (Date.now() - lastWrite >= services.tuning.heartbeatMs) {
            await stream.write(': heartbeat\n\n');
            lastWrite = Date.now();
          }
          const untilHeartbeat = services.tuning.heartbeatMs - (Date.now() - lastWrite);
          const wake = await watch.next(Math.max(0, Math.min(services.tuning.pollIntervalMs, untilHeartbeat)), stop);
          if (wake === 'aborted' || stream.aborted || stream.closed) return;
        }
      } finally {
        watch.close();
      }
    });
  });
  return routes;
}
