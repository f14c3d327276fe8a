import { verifyChain } from '@countersign/core/audit';
import { makeGateFixture, runAtomicAuditConformance, runEditedCallConformance } from '@countersign/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresStore } from './open.ts';
import { describePg, tempStore } from './testing/test-database.ts';

describePg('postgres: ledger and audit in one transaction', () => {
  runAtomicAuditConformance('postgres', async () => {
    const { store, cleanup } = await tempStore();
    return { ledger: store.ledger, audit: store.audit, cleanup };
  });

  runEditedCallConformance('postgres', async () => {
    const { store, cleanup } = await tempStore();
    return { ledger: store.ledger, audit: store.audit, cleanup };
  });

  describe('one durable commit per step', () => {
    let store: PostgresStore;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ store, cleanup } = await tempStore());
    });
    afterAll(() => cleanup());

    it('allowed call: propose = 1, authorize = 1, complete = 1 transaction', async () => {
      const f = makeGateFixture({ ledger: store.ledger, audit: store.audit });
      const commitsOf = async <T>(step: () => Promise<T>): Promise<{ value: T; commits: number }> => {
        const before = store.durableCommits();
        const value = await step();
        return { value, commits: store.durableCommits() - before };
      };
      const modelCall = f.call({ arguments: '{"amount":5,"to":"alice"}' });
      const proposed = await commitsOf(() => f.gate.propose(modelCall));
      expect(proposed.value.status).toBe('allowed');
      expect(proposed.commits).toBe(1);
      const authorized = await commitsOf(() => f.gate.authorize(f.dispatchFor(modelCall)));
      const outcome = authorized.value;
      if (outcome.status !== 'authorized') throw new Error(`not authorized: ${outcome.status}`);
      expect(authorized.commits).toBe(1);
      const completed = await commitsOf(() => f.gate.complete(outcome.grant, { status: 'succeeded', result: 1 }));
      expect(completed.value.ok).toBe(true);
      expect(completed.commits).toBe(1);
      const records = await store.audit.read();
      expect(records.map((r) => r.type)).toEqual(['proposal', 'dispatch', 'result']);
      expect(verifyChain(records).ok).toBe(true);
    });

    it('one model response with five calls (allowed, needing approval, denied): one transaction for the whole response', async () => {
      const f = makeGateFixture({ ledger: store.ledger, audit: store.audit });
      const toolCalls = [
        { id: 'r-1', name: 'transfer', arguments: { amount: 5, to: 'a' } },
        { id: 'r-2', name: 'transfer', arguments: { amount: 500, to: 'b' } },
        { id: 'r-3', name: 'read_file', arguments: { path: 'x' } },
        { id: 'r-4', name: 'delete_repo', arguments: {} },
        { id: 'r-5', name: 'transfer', arguments: { amount: 7, to: 'c' } },
      ];
      const before = store.durableCommits();
      const outcomes = await f.gate.proposeResponse({ runId: 'run-response', sessionId: 's', principal: 'user:42', responseRef: 'resp_9', toolCalls });
      expect(outcomes.map((o) => o.status)).toEqual(['allowed', 'approval_required', 'allowed', 'denied', 'allowed']);
      expect(store.durableCommits() - before).toBe(1);
      const records = (await store.audit.read()).filter((r) => r.runId === 'run-response');
      expect(records.filter((r) => r.type === 'proposal').map((r) => r.callId)).toEqual(['r-1', 'r-2', 'r-3', 'r-4', 'r-5']);
      expect(records.filter((r) => r.type === 'proposal').every((r) => r.detail?.responseRef === 'resp_9')).toBe(true);
      expect(verifyChain(await store.audit.read()).ok).toBe(true);
    });
  });
});
