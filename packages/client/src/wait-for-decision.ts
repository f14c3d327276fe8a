import type { WaitOutcome } from '@countersign/core';
import { RequestStatusResponse } from '@countersign/core/wire';
import type { z } from 'zod';
import { CountersignClientError } from './client-error.ts';
import { type HttpOptions, parseBody, send } from './http.ts';
import { readRefused } from './refusals.ts';

// One long-poll asks the server to hold the request this long at most (it caps `wait` itself).
const LONG_POLL_SECONDS = 25;

/**
 * Long-polls `GET /requests/:id?wait=N` until the request leaves pending, the timeout
 * passes or `signal` aborts; the last two answer `pending` (not an error), as the
 * in-process port does. A lost long-poll is retried like any read.
 */
export async function waitForDecision(
  http: HttpOptions,
  requestId: string,
  options: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined },
): Promise<WaitOutcome> {
  const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
  const path = `/api/v1/requests/${encodeURIComponent(requestId)}`;
  // The deadline also cuts a long-poll short (the first, immediate read always happens), so the wait never overshoots `timeoutMs`.
  const signals = [options.signal, options.timeoutMs === undefined ? undefined : AbortSignal.timeout(Math.max(0, options.timeoutMs))];
  const stop = AbortSignal.any(signals.filter((signal) => signal !== undefined));
  let wait = 0;
  for (;;) {
    let answer: Awaited<ReturnType<typeof send>>;
    try {
      answer = await send(http, { method: 'GET', path: `${path}?wait=${wait}`, idempotent: true, extraTimeoutMs: wait * 1000, signal: wait === 0 ? options.signal : stop });
    } catch (error) {
      if (error instanceof CountersignClientError && error.code === 'aborted') return pending(requestId);
      throw error;
    }
    if (!answer.ok) return readRefused(answer);
    const view = parseBody(RequestStatusResponse, answer);
    if (view.requestId !== requestId) {
      throw new CountersignClientError('bad_response', `asked for request ${requestId}, got ${view.requestId}`, { httpStatus: answer.status });
    }
    if (view.status !== 'pending') return decided(view);
    const remaining = deadline - Date.now();
    if (remaining <= 0 || stop.aborted) return pending(requestId);
    wait = Math.max(1, Math.min(LONG_POLL_SECONDS, Math.ceil(remaining / 1000)));
  }
}

function decided(view: z.output<typeof RequestStatusResponse>): WaitOutcome {
  // Only the server's `edited` status counts as an edit: an `edited` link next to any
  // other status (an old server, a confused proxy) is not followed.
  if (view.status !== 'edited') return { ok: true, requestId: view.requestId, status: view.status };
  if (view.edited === undefined) return { ok: false, reason: 'not_found', message: `approval request ${view.requestId} was edited, but the edited call is not named` };
  // The approver changed the call: what may run is the edited call, under its own request.
  const { requestId, proposalId, callId } = view.edited;
  return { ok: true, requestId: view.requestId, status: 'edited', editedRequestId: requestId, editedProposalId: proposalId, ...(callId === undefined ? {} : { editedCallId: callId }) };
}

function pending(requestId: string): WaitOutcome {
  return { ok: true, requestId, status: 'pending' };
}
