import { MemoryGateEvents } from '@countersign/core/events';
import { FINANCE } from '@countersign/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, type ServerFixture } from '../../testing/server-fixture.ts';
import { settledOrPending, settleWithoutTimers } from '../../testing/settle.ts';
import { sseReader } from '../../testing/sse-reader.ts';
import { startWebhookReceiver } from '../../testing/webhook-receiver.ts';
import type { ApprovalView } from '../../views/request-views.ts';
import type { WebhookPayload } from '../../webhook/webhook-notifier.ts';

// No poll, heartbeat or wait (an hour, `?wait=3600`) runs out within the test timeout: a waiter
// that answers in time was woken by the gate's events.
const HOUR_MS = 3_600_000;
const NO_POLL = { pollIntervalMs: HOUR_MS, heartbeatMs: HOUR_MS, maxWaitSeconds: HOUR_MS / 1000 };

let f: ServerFixture | undefined;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
afterEach(async () => {
  await f?.close();
  await receiver?.close();
  f = undefined;
  receiver = undefined;
});

const later = (ms: number, fn: () => unknown) => new Promise((resolve) => setTimeout(() => resolve(fn()), ms));

describe('a decision made in process (gate.approvals.decide, no HTTP) wakes HTTP waiters', () => {
  it('long-poll returns at once, not at the poll interval', async () => {
    f = makeServerFixture({ tuning: NO_POLL });
    const { requestId } = await f.proposeTransfer();
    const [res] = await Promise.all([
      f.agent('GET', `/api/v1/requests/${requestId}?wait=3600`),
      later(100, () => f!.gate.approvals.decide(FINANCE, { requestId, decision: 'approve' })),
    ]);
    expect(((await res.json()) as ApprovalView).status).toBe('approved');
  });

  it('the event stream sends the decision at once', async () => {
    f = makeServerFixture({ tuning: NO_POLL });
    const { requestId } = await f.proposeTransfer();
    const stream = sseReader(await f.agent('GET', `/api/v1/requests/${requestId}/events`));
    expect(JSON.parse((await stream.next())?.data ?? '{}')).toMatchObject({ status: 'pending' });
    await f.gate.approvals.decide(FINANCE, { requestId, decision: 'deny', reason: 'no' });
    expect(JSON.parse((await stream.next())?.data ?? '{}')).toMatchObject({ status: 'denied' });
    expect(await stream.next()).toBeUndefined();
  });

  it('an in-process approve-with-edits wakes the waiter on the original with the edited request in place', async () => {
    f = makeServerFixture({ tuning: NO_POLL });
    const { requestId } = await f.proposeTransfer();
    const [res] = await Promise.all([
      f.agent('GET', `/api/v1/requests/${requestId}?wait=3600`),
      later(100, () => f!.gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: { amount: 400, to: 'alice' } })),
    ]);
    const view = (await res.json()) as ApprovalView;
    expect(view.status).toBe('edited');
    expect(view.edited?.requestId).toEqual(expect.any(String));
  });

  it('a decision on another replica (no shared bus) does NOT wake it: only a re-read of the ledger sees it', async () => {
    const events = new MemoryGateEvents();
    f = makeServerFixture({ tuning: NO_POLL }, { events });
    const { requestId } = await f.proposeTransfer();
    const waiting = Promise.resolve(f.agent('GET', `/api/v1/requests/${requestId}?wait=3600`));
    await settleWithoutTimers();
    await f.otherReplica().approvals.decide(FINANCE, { requestId, decision: 'approve' });
    // Every callback has run since: had the other replica's decision woken the waiter, it would have answered.
    expect(await settledOrPending(waiting)).toBe('pending');
    // What a replica-aware bus sends when events may have been missed: the waiter re-reads and sees the decision.
    events.publish({ type: 'resync', at: 0 });
    expect(((await (await waiting).json()) as ApprovalView).status).toBe('approved');
  });

  it('the webhook fires for a request proposed and decided in process', async () => {
    receiver = await startWebhookReceiver([]);
    f = makeServerFixture({ tuning: NO_POLL, webhook: { url: receiver.url, secret: 'whsec-in-process', maxAttempts: 2, baseDelayMs: 10 } });
    const proposed = await f.gate.propose(f.call({ callId: 'in-process-1' }));
    if (proposed.status !== 'approval_required') throw new Error(`expected approval_required, got ${proposed.status}`);
    await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve' });
    await receiver.waitFor(2);
    const types = receiver.received.map((d) => (JSON.parse(d.body) as WebhookPayload).id).sort();
    expect(types).toEqual([`request.created:${proposed.requestId}`, `request.decided:${proposed.requestId}:1`]);
  });
});
