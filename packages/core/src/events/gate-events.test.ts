import { describe, expect, it, vi } from 'vitest';
import { FINANCE, makeGateFixture } from '../testing/gate-fixture.ts';
import { MemoryGateEvents } from './memory-gate-events.ts';
import type { DeliveredEvent, GateEvent } from './types.ts';
import { isAboutRequest, waitForEvent, watchEvents } from './wait-for-event.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
/** Runs every pending callback but no timer (setImmediate comes after the promise jobs). */
const settleWithoutTimers = () => new Promise((resolve) => setImmediate(resolve));
/** The promise's value if it settles without a timer firing, else 'pending'. */
const settledOrPending = <T>(promise: Promise<T>): Promise<T | 'pending'> => Promise.race([promise, settleWithoutTimers().then(() => 'pending' as const)]);

function recording() {
  const events = new MemoryGateEvents();
  const seen: DeliveredEvent[] = [];
  events.subscribe((event) => {
    seen.push(event);
  });
  return { events, seen };
}

describe('gate lifecycle events', () => {
  it('propose, decide and token each emit after the commit, with ids and never the arguments', async () => {
    const { events, seen } = recording();
    const f = makeGateFixture({ events });
    const call = f.call({ arguments: '{"amount":500,"to":"secret-recipient"}' });
    const proposed = await f.gate.propose(call);
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve' });
    await f.gate.approvals.token(proposed.requestId);
    await settle();
    expect(seen.map((e) => e.type)).toEqual(['proposed', 'approval_requested', 'decided', 'token_minted']);
    const ids = { runId: call.runId, callId: call.callId, toolName: 'transfer', proposalId: proposed.proposalId };
    expect(seen[0]).toMatchObject({ ...ids, verdict: 'approve' });
    expect(seen[1]).toMatchObject({ ...ids, requestId: proposed.requestId });
    expect(seen[2]).toMatchObject({ ...ids, requestId: proposed.requestId, approver: 'fiona', decision: 'approve', status: 'approved' });
    expect(JSON.stringify(seen)).not.toContain('secret-recipient');
    // What an event says is already in the store when it arrives.
    expect((await f.ledger.getApprovalRequest(proposed.requestId))?.status).toBe('approved');
  });

  it('refusals emit `rejected` with the stage and reason', async () => {
    const { events, seen } = recording();
    const f = makeGateFixture({ events });
    await f.gate.propose(f.call({ arguments: '{"a":1,"a":2}' }));
    await f.gate.propose({ ...f.call(), runId: '' });
    await settle();
    expect(seen).toMatchObject([
      { type: 'rejected', stage: 'propose', reason: 'invalid_arguments', runId: 'run-1', toolName: 'transfer' },
      { type: 'rejected', stage: 'propose', reason: 'invalid_call' },
    ]);
    // Malformed ids are not repeated to listeners.
    expect(seen[1]).not.toHaveProperty('runId');
  });

  it('approve-with-edits: the edited call is proposed, requested (and decided), then the original is `edited`', async () => {
    const { events, seen } = recording();
    const f = makeGateFixture({ events });
    const proposed = await f.gate.propose(f.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    const outcome = await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve', editedArguments: { amount: 400, to: 'alice' } });
    if (!outcome.ok) throw new Error(outcome.reason);
    await settle();
    const edited = seen.slice(2);
    expect(edited.map((e) => e.type)).toEqual(['proposed', 'approval_requested', 'decided', 'edited']);
    expect(edited[3]).toMatchObject({
      requestId: proposed.requestId,
      editedRequestId: outcome.editedRequest?.requestId,
      editedProposalId: outcome.editedProposal?.proposalId,
    });
  });

  it('revoke emits `revoked`', async () => {
    const { events, seen } = recording();
    const f = makeGateFixture({ events });
    const { requestId } = await f.proposeAndApprove();
    await f.gate.approvals.revoke(FINANCE, requestId);
    await settle();
    expect(seen.at(-1)).toMatchObject({ type: 'revoked', requestId, approver: 'fiona' });
  });

  it('a listener that throws or rejects neither breaks the operation nor starves other listeners', async () => {
    const { events, seen } = recording();
    events.subscribe(() => {
      throw new Error('broken listener');
    });
    events.subscribe(() => Promise.reject(new Error('broken async listener')));
    const f = makeGateFixture({ events });
    const proposed = await f.gate.propose(f.call());
    expect(proposed.status).toBe('approval_required');
    await settle();
    expect(seen.map((e) => e.type)).toEqual(['proposed', 'approval_requested']);
  });

  it('a bus whose publish throws never turns a committed decision into a failure', async () => {
    const throwing = { subscribe: () => () => undefined, publish: (_: GateEvent) => {
      throw new Error('bus down');
    } };
    const f = makeGateFixture({ events: throwing });
    const proposed = await f.gate.propose(f.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    expect(await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve' })).toMatchObject({ ok: true });
  });

  it('listeners run after publish returns, not inside it', () => {
    const { events, seen } = recording();
    events.publish({ type: 'resync', at: 0 });
    expect(seen).toEqual([]);
  });

  it('waitForEvent wakes on a matching event or a resync, times out, and unsubscribes', async () => {
    const events = new MemoryGateEvents();
    const matching = waitForEvent(events, isAboutRequest('r1'), 5_000);
    events.publish({ type: 'revoked', at: 0, requestId: 'r2', approver: 'a', runId: 'x', proposalId: 'p', callId: 'c', toolName: 't' });
    events.publish({ type: 'revoked', at: 0, requestId: 'r1', approver: 'a', runId: 'x', proposalId: 'p', callId: 'c', toolName: 't' });
    expect(await matching).toBe('event');
    const resynced = waitForEvent(events, isAboutRequest('r1'), 5_000);
    events.publish({ type: 'resync', at: 0 });
    expect(await resynced).toBe('event');
    expect(await waitForEvent(events, isAboutRequest('r1'), 10)).toBe('timeout');
    expect(await waitForEvent(events, isAboutRequest('r1'), 5_000, AbortSignal.abort())).toBe('aborted');
    expect(events.listenerCount).toBe(0);
  });
});

describe('watchEvents', () => {
  it('remembers an event that arrives between two waits (after a read, before the next wait), so no waiter sleeps through it', async () => {
    const events = new MemoryGateEvents();
    const watch = watchEvents(events, isAboutRequest('r1'));
    // The waiter is busy re-reading the store when the decision lands.
    events.publish({ type: 'revoked', at: 0, requestId: 'r1', approver: 'a', runId: 'x', proposalId: 'p', callId: 'c', toolName: 't' });
    await settle();
    // Remembered, the wait ends with the event; forgotten, it would end with 'timeout'.
    expect(await watch.next(5_000)).toBe('event');
    // Consumed: the next wait waits again.
    expect(await watch.next(10)).toBe('timeout');
    watch.close();
    expect(events.listenerCount).toBe(0);
  });
});

describe('authorize, complete and waitForDecision', () => {
  it('authorize emits `authorized` (the request is consumed), complete emits `completed` once, refusals `rejected`', async () => {
    const { events, seen } = recording();
    const f = makeGateFixture({ events });
    const { requestId, proposalId, token, call } = await f.proposeAndApprove();
    const authorized = await f.gate.authorize({ proposalId, token });
    if (authorized.status !== 'authorized') throw new Error(authorized.status);
    await f.gate.authorize({ proposalId, token });
    await f.gate.complete(authorized.grant, { status: 'succeeded', result: { sent: true } });
    await f.gate.complete(authorized.grant, { status: 'succeeded', result: { sent: true } });
    await f.gate.complete(authorized.grant, { status: 'succeeded', result: { sent: false } });
    await settle();
    const later = seen.filter((e) => ['authorized', 'completed', 'rejected'].includes(e.type));
    expect(later).toMatchObject([
      { type: 'authorized', requestId, proposalId, callId: call.callId },
      { type: 'rejected', stage: 'authorize', reason: 'already_consumed', proposalId },
      { type: 'completed', status: 'succeeded', proposalId },
      { type: 'rejected', stage: 'complete', reason: 'result_conflict', proposalId },
    ]);
    expect(JSON.stringify(seen)).not.toContain('sent');
  });

  it('an unknown call is rejected without repeating the ids the runtime sent', async () => {
    const { events, seen } = recording();
    const f = makeGateFixture({ events });
    await f.gate.authorize({ proposalId: 'made-up', runId: 'run-x', callId: 'call-x' });
    await settle();
    expect(seen).toEqual([{ type: 'rejected', at: expect.any(Number), stage: 'authorize', reason: 'unknown_call' }]);
  });

  it('waitForDecision wakes on an in-process decision at once, not by its fallback poll', async () => {
    const f = makeGateFixture();
    const proposed = await f.gate.propose(f.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    // The fallback poll and the wait's timeout are timers: frozen, they never fire, so only the event can wake the wait.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const waiting = f.gate.port().waitForDecision(proposed.requestId, { timeoutMs: 10_000 });
      await settleWithoutTimers();
      await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve' });
      expect(await settledOrPending(waiting)).toMatchObject({ ok: true, status: 'approved' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('waitForDecision still sees a decision its bus never hears of (another replica), by the fallback poll', async () => {
    const f = makeGateFixture();
    const replica = makeGateFixture({ ledger: f.ledger, audit: f.audit, keyring: f.keyring }).gate;
    const proposed = await f.gate.propose(f.call());
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    const waiting = f.gate.port().waitForDecision(proposed.requestId, { timeoutMs: 10_000 });
    setTimeout(() => void replica.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'deny' }), 20);
    expect(await waiting).toMatchObject({ ok: true, status: 'denied' });
  });
});
