import { describe, expect, it } from 'vitest';
import type { Grant } from '../../gate/execute/grant.ts';
import type { KitContext } from './kit-context.ts';

/** Results: recorded once per grant, checked against the ledger, and the call's state readable. */
export function describeCompletionAttacks(kit: KitContext): void {
  describe('completion', () => {
    async function authorized(): Promise<Grant> {
      const { call, proposalId, token } = await kit.approved();
      expect(await kit.port().callStatus(proposalId)).toMatchObject({ ok: true, call: { state: 'proposed' } });
      const outcome = await kit.port().authorize(kit.request(call, proposalId, token));
      if (outcome.status !== 'authorized') throw new Error(`expected authorized, got ${JSON.stringify(outcome)}`);
      return outcome.grant;
    }

    it('the call reads dispatched between authorize and complete ("ran, result unknown"), then succeeded', async () => {
      const grant = await authorized();
      expect(await kit.port().callStatus(grant.proposalId)).toMatchObject({
        ok: true,
        call: { state: 'dispatched', request: { requestId: grant.requestId, status: 'consumed' } },
      });
      const done = await kit.complete(grant, 'a', { sent: true });
      expect(done).toMatchObject({ ok: true, duplicate: false });
      expect(await kit.port().callStatus(grant.proposalId)).toMatchObject({
        ok: true,
        call: { state: 'succeeded', resultDigest: (done as { resultDigest: string }).resultDigest },
      });
    });

    it('complete is idempotent per grant; a different result is refused and the first stands', async () => {
      const grant = await authorized();
      const first = await kit.complete(grant, 'a', { sent: 1 });
      expect(first).toMatchObject({ ok: true, duplicate: false });
      expect(await kit.complete(grant, 'a', { sent: 1 })).toEqual({ ...first, duplicate: true });
      expect(await kit.complete(grant, 'a', { sent: 2 })).toMatchObject({ ok: false, reason: 'result_conflict' });
      expect(await kit.port().complete(grant, { status: 'failed', error: 'boom' })).toMatchObject({ ok: false, reason: 'result_conflict' });
      expect(await kit.port().callStatus(grant.proposalId)).toMatchObject({
        ok: true,
        call: { state: 'succeeded', resultDigest: (first as { resultDigest: string }).resultDigest },
      });
    });

    it('concurrent completes with different results: exactly one is recorded', async () => {
      const grant = await authorized();
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => kit.complete(grant, 'a', { attempt: i })));
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok && o.reason === 'result_conflict')).toHaveLength(9);
    });

    it('an edited grant is refused: the ledger, not the grant, says what was authorized', async () => {
      const grant = await authorized();
      for (const edit of [{ canonicalArgs: '{"amount":10000,"to":"alice"}' }, { toolName: 'kit_delete' }, { requestId: 'kit-other-request' }]) {
        expect(await kit.complete({ ...grant, ...edit })).toMatchObject({ ok: false, reason: 'grant_mismatch' });
      }
      expect(await kit.port().callStatus(grant.proposalId)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
      expect(await kit.complete(grant)).toMatchObject({ ok: true });
    });

    it('a grant for a call that was never authorized, or that never existed, is refused', async () => {
      const grant = await authorized();
      const other = kit.call();
      const proposed = await kit.propose(other);
      const proposalId = (proposed as { proposalId: string }).proposalId;
      expect(await kit.complete({ ...grant, proposalId })).toMatchObject({ ok: false, reason: 'not_dispatched' });
      expect(await kit.complete({ ...grant, proposalId: 'kit-never-proposed' })).toMatchObject({ ok: false, reason: 'unknown_grant' });
      expect(await kit.port().complete(grant, { status: 'maybe' } as never)).toMatchObject({ ok: false, reason: 'invalid_completion' });
    });

    it('waitForDecision answers pending on timeout and approved once decided', async () => {
      const call = kit.call();
      const proposed = await kit.propose(call);
      if (proposed.status !== 'approval_required') throw new Error(`expected approval_required, got ${proposed.status}`);
      expect(await kit.port().waitForDecision(proposed.requestId, { timeoutMs: 50 })).toMatchObject({ ok: true, status: 'pending' });
      const waiting = kit.port().waitForDecision(proposed.requestId, { timeoutMs: 10_000 });
      await kit.adapter.decide(proposed.requestId, 'approve');
      expect(await waiting).toMatchObject({ ok: true, requestId: proposed.requestId, status: 'approved' });
    });
  });
}
