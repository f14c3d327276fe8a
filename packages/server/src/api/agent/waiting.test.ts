import { FINANCE } from '@countersign/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeServerFixture, type ServerFixture } from '../../testing/server-fixture.ts';
import { sseReader } from '../../testing/sse-reader.ts';
import type { ApprovalView } from '../../views/request-views.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const later = (ms: number, fn: () => unknown) => new Promise((resolve) => setTimeout(() => resolve(fn()), ms));

// Neither the poll nor a wait of an hour runs out within the test timeout: what ends a wait in
// time is what the test means (a gate event, a re-read of the ledger at a short poll, close()).
const HOUR_MS = 3_600_000;
const LONG_WAITS = { pollIntervalMs: HOUR_MS, heartbeatMs: HOUR_MS, maxWaitSeconds: HOUR_MS / 1000 };

describe('long-poll: GET /requests/:id?wait=N', () => {
  it('returns as soon as a decision through this server is recorded (in-process event, not the poll)', async () => {
    f = makeServerFixture({ tuning: LONG_WAITS });
    const { requestId } = await f.proposeTransfer();
    const [res] = await Promise.all([
      f.agent('GET', `/api/v1/requests/${requestId}?wait=3600`),
      later(100, () => f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' })),
    ]);
    expect(((await res.json()) as ApprovalView).status).toBe('approved');
  });

  it('sees a decision made through another replica (same ledger, no shared event bus) by re-reading the ledger', async () => {
    f = makeServerFixture({ tuning: { ...LONG_WAITS, pollIntervalMs: 50 } });
    const { requestId } = await f.proposeTransfer();
    const [res] = await Promise.all([
      f.agent('GET', `/api/v1/requests/${requestId}?wait=3600`),
      later(100, () => f.otherReplica().approvals.decide(FINANCE, { requestId, decision: 'deny' })),
    ]);
    expect(((await res.json()) as ApprovalView).status).toBe('denied');
  });

  it('returns the pending status when the wait runs out, and at once without ?wait', async () => {
    f = makeServerFixture({ tuning: LONG_WAITS });
    const { requestId } = await f.proposeTransfer();
    const reads = vi.spyOn(f.gate.approvals, 'agentView');
    // Without ?wait: one read, no waiting (a wait here could only end past the test timeout).
    expect(((await (await f.agent('GET', `/api/v1/requests/${requestId}`)).json()) as ApprovalView).status).toBe('pending');
    expect(reads).toHaveBeenCalledTimes(1);
    reads.mockClear();
    // With ?wait=1: nothing wakes it, so it answers from a read made when the second ran out, not from the first.
    expect(((await (await f.agent('GET', `/api/v1/requests/${requestId}?wait=1`)).json()) as ApprovalView).status).toBe('pending');
    expect(reads.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('refuses a malformed wait and an unknown request', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    for (const wait of ['abc', '-1', '1.5', '1e3']) {
      expect((await f.agent('GET', `/api/v1/requests/${requestId}?wait=${wait}`)).status).toBe(400);
    }
    expect((await f.agent('GET', '/api/v1/requests/nope?wait=1')).status).toBe(404);
  });

  it('close() ends waiting clients', async () => {
    f = makeServerFixture({ tuning: LONG_WAITS });
    const { requestId } = await f.proposeTransfer();
    const pending = f.agent('GET', `/api/v1/requests/${requestId}?wait=3600`);
    await later(50, () => f.close());
    expect((await pending).status).toBe(200);
  });
});

describe('event stream: GET /requests/:id/events', () => {
  it('sends the current status, then a status event on decision, then ends', async () => {
    f = makeServerFixture({ tuning: { pollIntervalMs: 60_000, heartbeatMs: 60_000 } });
    const { requestId } = await f.proposeTransfer();
    const res = await f.agent('GET', `/api/v1/requests/${requestId}/events`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = sseReader(res);
    const first = await stream.next();
    expect(first?.event).toBe('status');
    expect(JSON.parse(first?.data ?? '{}')).toMatchObject({ requestId, status: 'pending' });
    await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' });
    const decided = await stream.next();
    expect(decided?.event).toBe('status');
    expect(JSON.parse(decided?.data ?? '{}')).toMatchObject({ requestId, status: 'approved', approvals: 1 });
    expect(await stream.next()).toBeUndefined();
  });

  it('heartbeats while idle and picks up a decision made by another replica', async () => {
    f = makeServerFixture({ tuning: { pollIntervalMs: 50, heartbeatMs: 120 } });
    const { requestId } = await f.proposeTransfer();
    const stream = sseReader(await f.agent('GET', `/api/v1/requests/${requestId}/events`));
    expect((await stream.next())?.event).toBe('status');
    expect((await stream.next())?.comments).toEqual(['heartbeat']);
    await f.otherReplica().approvals.decide(FINANCE, { requestId, decision: 'deny', reason: 'no' });
    let frame = await stream.next();
    while (frame !== undefined && frame.event === undefined) frame = await stream.next();
    expect(JSON.parse(frame?.data ?? '{}')).toMatchObject({ status: 'denied' });
    expect(await stream.next()).toBeUndefined();
  });

  it('a request that is already decided gets one status event and the end', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'deny' });
    const stream = sseReader(await f.agent('GET', `/api/v1/requests/${requestId}/events`));
    expect(JSON.parse((await stream.next())?.data ?? '{}')).toMatchObject({ status: 'denied' });
    expect(await stream.next()).toBeUndefined();
  });

  it('an unknown request is a JSON 404, not a stream', async () => {
    f = makeServerFixture();
    const res = await f.agent('GET', '/api/v1/requests/nope/events');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});
