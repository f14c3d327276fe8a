import { isAboutRequest, watchEvents } from '@countersign/core/events';
import type { Handler } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { agentOf } from '../../auth/agent-of.ts';
import { statusFingerprint } from '../../views/request-views.ts';
import { readRequest } from './read-request.ts';

/**
 * GET /requests/:id/events: a server-sent event stream. One `status` event now and
 * one on every change (woken by the gate's events, whoever decided, plus a ledger
 * re-read at the poll interval in case an event was missed), heartbeat comments while idle,
 * closed once the request is no longer pending.
 */
export function requestEventsRoute(services: Services): Handler<AppEnv> {
  return async (c) => {
    const requestId = c.req.param('id') ?? '';
    const agent = agentOf(c);
    // Watching starts before the first read, so a decision right after a read still wakes the stream.
    const watch = watchEvents(services.gate.events, isAboutRequest(requestId));
    let first: Awaited<ReturnType<typeof readRequest>>;
    try {
      // Unknown ids (and other agents' requests) fail as a plain JSON 404 before the stream starts.
      first = await readRequest(services, agent, requestId);
    } catch (error) {
      watch.close();
      throw error;
    }
    const signal = AbortSignal.any([c.req.raw.signal, services.closing]);
    return streamSSE(c, async (stream) => {
      try {
        await streamChanges(stream, first);
      } finally {
        watch.close();
      }
    });

    async function streamChanges(stream: SSEStreamingApi, first: Awaited<ReturnType<typeof readRequest>>): Promise<void> {
      const aborted = new AbortController();
      stream.onAbort(() => aborted.abort());
      const stop = AbortSignal.any([signal, aborted.signal]);
      let seen = statusFingerprint(first);
      let sequence = 0;
      await stream.writeSSE({ event: 'status', id: String(++sequence), data: JSON.stringify(first) });
      if (first.status !== 'pending') return;
      let lastWrite = Date.now();
      for (;;) {
        const untilHeartbeat = services.tuning.heartbeatMs - (Date.now() - lastWrite);
        const wake = await watch.next(Math.max(0, Math.min(services.tuning.pollIntervalMs, untilHeartbeat)), stop);
        if (wake === 'aborted' || stream.aborted || stream.closed) return;
        let view: Awaited<ReturnType<typeof readRequest>>;
        try {
          view = await readRequest(services, agent, requestId);
        } catch {
          await stream.writeSSE({ event: 'error', data: JSON.stringify({ code: 'store_unavailable' }) });
          return;
        }
        const fingerprint = statusFingerprint(view);
        if (fingerprint !== seen) {
          seen = fingerprint;
          await stream.writeSSE({ event: 'status', id: String(++sequence), data: JSON.stringify(view) });
          lastWrite = Date.now();
          if (view.status !== 'pending') return;
        } else if (Date.now() - lastWrite >= services.tuning.heartbeatMs) {
          await stream.write(': heartbeat\n\n');
          lastWrite = Date.now();
        }
      }
    }
  };
}
