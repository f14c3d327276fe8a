import { verifyChain } from '@countersign/core/audit';
import { runAtomicAuditConformance, runEditedCallConformance } from '@countersign/core/testing';
import { makeGateFixture } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { tempStore } from './testing/temp-store.ts';
import { cleanupAfterEach } from './testing/cleanup-after-each.ts';

runAtomicAuditConformance('sqlite', async () => {
  const { store, cleanup } = tempStore();
  return { ledger: store.ledger, audit: store.audit, cleanup };
});

/**
 * Each step of a call is one durable write: the ledger change and its audit records
 * share one COMMIT (a count of transactions, not a timing).
 */
describe('sqlite: one durable commit per step', () => {
  const defer = cleanupAfterEach();

  function fixture() {
    const t = tempStore();
    defer(t.cleanup);
    const f = makeGateFixture({ ledger: t.store.ledger, audit: t.store.audit });
    /** Commits made while `step` ran. */
    const commitsOf = async <T>(step: () => Promise<T>): Promise<{ value: T; commits: number }> => {
      const before = t.store.durableCommits();
      const value = await step();
      return { value, commits: t.store.durableCommits() - before };
    };
    return { ...f, store: t.store, commitsOf };
  }

  it('allowed call: propose = 1, authorize = 1, complete = 1', async () => {
    const f = fixture();
    const modelCall = f.call({ arguments: '{"amount":5,"to":"alice"}' });
    const proposed = await f.commitsOf(() => f.gate.propose(modelCall));
    expect(proposed.value.status).toBe('allowed');
    expect(proposed.commits).toBe(1);
    const authorized = await f.commitsOf(() => f.gate.authorize(f.dispatchFor(modelCall)));
    const outcome = authorized.value;
    if (outcome.status !== 'authorized') throw new Error(`not authorized: ${outcome.status}`);
    expect(authorized.commits).toBe(1);
    const completed = await f.commitsOf(() => f.gate.complete(outcome.grant, { status: 'succeeded', result: { ok: true } }));
    expect(completed.value.ok).toBe(true);
    expect(completed.commits).toBe(1);
    const records = await f.store.audit.read();
    expect(records.map((r) => r.type)).toEqual(['proposal', 'dispatch', 'result']);
    expect(verifyChain(records).ok).toBe(true);
  });

  it('one model response with five calls (allowed, needing approval, denied): one commit for the whole response', async () => {
    const f = fixture();
    const toolCalls = [
      { id: 'r-1', name: 'transfer', arguments: { amount: 5, to: 'a' } },
      { id: 'r-2', name: 'transfer', arguments: { amount: 500, to: 'b' } },
      { id: 'r-3', name: 'read_file', arguments: { path: 'x' } },
      { id: 'r-4', name: 'delete_repo', arguments: {} },
      { id: 'r-5', name: 'transfer', arguments: { amount: 7, to: 'c' } },
    ];
    const proposed = await f.commitsOf(() =>
      f.gate.proposeResponse({ runId: 'run-response', sessionId: 's', principal: 'user:42', responseRef: 'chatcmpl-9', toolCalls }),
    );
    expect(proposed.value.map((o) => o.status)).toEqual(['allowed', 'approval_required', 'allowed', 'denied', 'allowed']);
    expect(proposed.commits).toBe(1);
    const records = await f.store.audit.read();
    // In the model's order, each call's records together.
    expect(records.filter((r) => r.type === 'proposal').map((r) => r.callId)).toEqual(['r-1', 'r-2', 'r-3', 'r-4', 'r-5']);
    expect(verifyChain(records).ok).toBe(true);
  });

  it('call needing approval: propose (with its request) = 1, decide = 1, authorize = 1, complete = 1', async () => {
    const f = fixture();
    const modelCall = f.call();
    const proposed = await f.commitsOf(() => f.gate.propose(modelCall));
    expect(proposed.value.status).toBe('approval_required');
    expect(proposed.commits).toBe(1);
    if (proposed.value.status !== 'approval_required') return;
    const requestId = proposed.value.requestId;
    // The decision with its signed decision record and minted token: one commit too.
    const decided = await f.commitsOf(() => f.gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId, decision: 'approve' }));
    expect(decided.value).toMatchObject({ ok: true, request: { status: 'approved' } });
    expect(decided.value.ok && 'auditRecorded' in decided.value).toBe(false);
    expect(decided.commits).toBe(1);
    const issued = await f.gate.approvals.token(proposed.value.requestId);
    if (!issued.ok) throw new Error('no token');
    const authorized = await f.commitsOf(() => f.gate.authorize(f.dispatchFor(modelCall, issued.token)));
    const outcome = authorized.value;
    if (outcome.status !== 'authorized') throw new Error(`not authorized: ${outcome.status}`);
    expect(authorized.commits).toBe(1);
    const completed = await f.commitsOf(() => f.gate.complete(outcome.grant, { status: 'failed', error: 'boom' }));
    expect(completed.value.ok).toBe(true);
    expect(completed.commits).toBe(1);
    const types = (await f.store.audit.read()).map((r) => r.type);
    expect(types).toEqual(['proposal', 'decision', 'dispatch', 'result']);
  });

  it('concurrent authorizes still share group commits (the record rides in the same batch item)', async () => {
    const f = fixture();
    const calls = Array.from({ length: 16 }, () => f.call({ arguments: '{"amount":5,"to":"alice"}' }));
    for (const modelCall of calls) expect((await f.gate.propose(modelCall)).status).toBe('allowed');
    const all = await f.commitsOf(() => Promise.all(calls.map((modelCall) => f.gate.authorize(f.dispatchFor(modelCall)))));
    expect(all.value.every((o) => o.status === 'authorized')).toBe(true);
    // 16 consumes with their 16 dispatch records: far fewer commits than calls (one, unless the loop was interrupted).
    expect(all.commits).toBeLessThanOrEqual(2);
    expect(verifyChain(await f.store.audit.read()).ok).toBe(true);
  });
});

runEditedCallConformance('sqlite', async () => {
  const { store, cleanup } = tempStore();
  return { ledger: store.ledger, audit: store.audit, cleanup };
});
