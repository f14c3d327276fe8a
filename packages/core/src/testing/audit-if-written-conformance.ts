import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../audit/types.ts';
import { verifyChain } from '../audit/verify-chain.ts';
import type { AuditLog } from '../audit/types.ts';
import type { LedgerStore, Proposal } from '../ledger/types.ts';
import { sampleProposal } from './ledger-samples.ts';

const T0 = Date.UTC(2026, 0, 1);

function about(proposal: Pick<Proposal, 'runId' | 'proposalId' | 'argsDigest'>, type: AuditEvent['type']): AuditEvent {
  return { type, at: T0, runId: proposal.runId, proposalId: proposal.proposalId, argsDigest: proposal.argsDigest, actor: 'system' };
}

const INVALID: AuditEvent = { type: 'dispatch', at: Number.NaN };

/**
 * `AuditIfWritten` (issue #31): records built before recordProposal / consume / recordResult are appended
 * in the write's transaction exactly when it takes effect, and never otherwise, however
 * the store learns the outcome (Postgres: in SQL, in the same round trip). Run inside
 * `runAtomicAuditConformance`, on its harness.
 */
export function describeAuditIfWritten(current: () => { ledger: LedgerStore; audit: AuditLog }): void {
  describe('records known before the write (AuditIfWritten): appended exactly when it takes effect', () => {
    async function proposed(n: number): Promise<Proposal[]> {
      const out: Proposal[] = [];
      for (let i = 0; i < n; i++) {
        const recorded = await current().ledger.recordProposal(sampleProposal());
        if (!recorded.ok) throw new Error('setup: proposal not recorded');
        out.push(recorded.proposal);
      }
      return out;
    }

    it('a consume that succeeds appends its records; refused consumes (spent, unknown, wrong token) append none', async () => {
      const { ledger, audit } = current();
      const [p] = await proposed(1);
      expect(await ledger.consume({ proposalId: p!.proposalId, now: T0 + 1 }, { ifWritten: [about(p!, 'dispatch')] })).toMatchObject({ ok: true });
      const again = await ledger.consume({ proposalId: p!.proposalId, now: T0 + 2 }, { ifWritten: [about(p!, 'dispatch')] });
      expect(again).toEqual({ ok: false, reason: 'already_consumed' });
      const unknown = await ledger.consume({ proposalId: 'no-such-proposal', now: T0 + 2 }, { ifWritten: [about(p!, 'dispatch')] });
      expect(unknown).toEqual({ ok: false, reason: 'not_found' });
      const records = await audit.read();
      expect(records.map((r) => [r.type, r.proposalId])).toEqual([['dispatch', p!.proposalId]]);
      expect(verifyChain(records).ok).toBe(true);
    });

    it('a consume whose approval does not match appends nothing and spends nothing', async () => {
      const { ledger, audit } = current();
      const recorded = await ledger.recordProposal(sampleProposal(), {
        request: { requestId: `req-${Math.random().toString(36).slice(2)}`, createdAt: T0, expiresAt: T0 + 60_000, requiredApprovals: 1, eligible: { roles: ['approver'] } },
      });
      if (!recorded.ok || recorded.request === undefined) throw new Error('setup');
      const { requestId } = recorded.request;
      await ledger.addDecision(requestId, { approver: 'alice', decision: 'approve', at: T0 + 1 }, { now: T0 + 1, tokenIdIfApproved: 'tok-right' });
      const wrong = await ledger.consume(
        { proposalId: recorded.proposal.proposalId, approval: { requestId, tokenId: 'tok-wrong' }, now: T0 + 2 },
        { ifWritten: [about(recorded.proposal, 'dispatch')] },
      );
      expect(wrong.ok).toBe(false);
      expect(await audit.head()).toBeUndefined();
      const right = await ledger.consume(
        { proposalId: recorded.proposal.proposalId, approval: { requestId, tokenId: 'tok-right' }, now: T0 + 2 },
        { ifWritten: [about(recorded.proposal, 'dispatch')] },
      );
      expect(right.ok).toBe(true);
      expect((await audit.read()).map((r) => r.type)).toEqual(['dispatch']);
    });

    it('of 12 concurrent consumes of one call, one wins and exactly one record is appended', async () => {
      const { ledger, audit } = current();
      const [p] = await proposed(1);
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, i) => ledger.consume({ proposalId: p!.proposalId, now: T0 + 1 }, { ifWritten: [{ ...about(p!, 'dispatch'), reason: `try-${i}` }] })),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      const records = await audit.read();
      expect(records).toHaveLength(1);
      expect(records[0]!.reason).toBe(`try-${outcomes.findIndex((o) => o.ok)}`);
      expect(verifyChain(records).ok).toBe(true);
    });

    it('concurrent writes mixing records known before and after the outcome, taking effect or not, and plain appends: one chain of exactly the effective ones', async () => {
      const { ledger, audit } = current();
      const calls = await proposed(6);
      // Calls 0 and 3 are spent already: their planned records must not appear.
      for (const i of [0, 3]) await ledger.consume({ proposalId: calls[i]!.proposalId, now: T0 });
      const writes = calls.flatMap((p, i) => [
        i % 2 === 0
          ? ledger.consume({ proposalId: p.proposalId, now: T0 + 1 }, { ifWritten: [about(p, 'dispatch')] })
          : ledger.consume({ proposalId: p.proposalId, now: T0 + 1 }, (c) => (c.ok ? [about(p, 'dispatch')] : [])),
        audit.append({ type: 'rejection', at: T0 + i, actor: 'system', reason: `plain-${i}` }),
      ]);
      await Promise.all(writes);
      const records = await audit.read();
      const dispatched = records.filter((r) => r.type === 'dispatch').map((r) => r.proposalId);
      expect(dispatched.sort()).toEqual([1, 2, 4, 5].map((i) => calls[i]!.proposalId).sort());
      expect(records.filter((r) => r.type === 'rejection')).toHaveLength(6);
      expect(records.map((r) => r.seq)).toEqual(Array.from({ length: records.length }, (_, i) => i + 1));
      expect(verifyChain(records).ok).toBe(true);
    });

    it('a result stored appends its record; the same result again, a different one, an undispatched or unknown call append none', async () => {
      const { ledger, audit } = current();
      const [p, undispatched] = await proposed(2);
      await ledger.consume({ proposalId: p!.proposalId, now: T0 + 1 });
      const result = { status: 'succeeded' as const, resultDigest: 'a'.repeat(64), at: T0 + 2 };
      const recordOf = () => ({ ifWritten: [about(p!, 'result')] });
      expect(await ledger.recordResult(p!.proposalId, result, recordOf())).toEqual({ ok: true, created: true, result });
      expect(await ledger.recordResult(p!.proposalId, result, recordOf())).toEqual({ ok: true, created: false, result });
      const other = { ...result, resultDigest: 'b'.repeat(64) };
      expect(await ledger.recordResult(p!.proposalId, other, recordOf())).toMatchObject({ ok: false, reason: 'conflict' });
      expect(await ledger.recordResult(undispatched!.proposalId, result, recordOf())).toEqual({ ok: false, reason: 'not_dispatched' });
      expect(await ledger.recordResult('no-such-proposal', result, recordOf())).toEqual({ ok: false, reason: 'not_found' });
      expect((await audit.read()).map((r) => r.type)).toEqual(['result']);
      expect((await ledger.getProposal(p!.proposalId))?.result).toEqual(result);
    });

    it('of concurrent different results for one call, one is stored and exactly its record appended', async () => {
      const { ledger, audit } = current();
      const [p] = await proposed(1);
      await ledger.consume({ proposalId: p!.proposalId, now: T0 + 1 });
      const digests = Array.from({ length: 8 }, (_, i) => String(i).repeat(64));
      const outcomes = await Promise.all(
        digests.map((d) => ledger.recordResult(p!.proposalId, { status: 'succeeded', resultDigest: d, at: T0 + 2 }, { ifWritten: [{ ...about(p!, 'result'), detail: { resultDigest: d } }] })),
      );
      const stored = outcomes.flatMap((o) => (o.ok && o.created ? [o.result.resultDigest] : []));
      expect(stored).toHaveLength(1);
      expect((await audit.read()).map((r) => r.detail?.resultDigest)).toEqual(stored);
    });

    it('a call recorded appends its records; the same call again, a conflicting one and one in another agent\'s run append none', async () => {
      const { ledger, audit } = current();
      const p = sampleProposal();
      const recordOf = (type: AuditEvent['type'] = 'proposal') => ({ ifWritten: [about(p, type)] });
      expect(await ledger.recordProposal(p, { audit: recordOf() })).toMatchObject({ ok: true, created: true });
      // A retried propose: same call id and content under a new proposal id.
      const again = { ...p, proposalId: `${p.proposalId}-again` };
      expect(await ledger.recordProposal(again, { audit: recordOf() })).toMatchObject({ ok: true, created: false, proposal: { proposalId: p.proposalId } });
      const conflicting = { ...again, canonicalArgs: '{"other":true}', argsDigest: 'c'.repeat(64) };
      expect(await ledger.recordProposal(conflicting, { audit: recordOf() })).toMatchObject({ ok: false, reason: 'conflict' });
      const intruder = { ...sampleProposal({ runId: p.runId }), agent: `${p.agent}-other` };
      expect(await ledger.recordProposal(intruder, { audit: recordOf() })).toEqual({ ok: false, reason: 'run_owned_by_other_agent' });
      const records = await audit.read();
      expect(records.map((r) => [r.type, r.proposalId])).toEqual([['proposal', p.proposalId]]);
      expect(verifyChain(records).ok).toBe(true);
    });

    it('a call recorded with an invalid record is not recorded (no call, no request); among concurrent proposals it fails alone', async () => {
      const { ledger, audit } = current();
      const p = sampleProposal();
      const request = { requestId: `req-${p.proposalId}`, createdAt: T0, expiresAt: T0 + 60_000, requiredApprovals: 1, eligible: { roles: ['approver'] } };
      await expect(ledger.recordProposal(p, { request, audit: { ifWritten: [about(p, 'proposal'), INVALID] } })).rejects.toThrow();
      expect(await ledger.getProposal(p.proposalId)).toBeUndefined();
      expect(await ledger.getApprovalRequest(request.requestId)).toBeUndefined();
      expect(await audit.head()).toBeUndefined();
      const calls = [0, 1, 2].map(() => sampleProposal());
      const settled = await Promise.allSettled(calls.map((c, i) => ledger.recordProposal(c, { audit: { ifWritten: i === 1 ? [INVALID] : [about(c, 'proposal')] } })));
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await ledger.getProposal(calls[1]!.proposalId)).toBeUndefined();
      const records = await audit.read();
      expect(records.map((r) => r.proposalId).sort()).toEqual([calls[0]!.proposalId, calls[2]!.proposalId].sort());
      expect(verifyChain(records).ok).toBe(true);
    });

    it('an invalid record fails its write, which then never took effect; among concurrent writes it fails alone', async () => {
      const { ledger, audit } = current();
      const calls = await proposed(4);
      await expect(ledger.consume({ proposalId: calls[0]!.proposalId, now: T0 + 1 }, { ifWritten: [about(calls[0]!, 'dispatch'), INVALID] })).rejects.toThrow();
      expect((await ledger.getProposal(calls[0]!.proposalId))?.state).toBe('proposed');
      expect(await audit.head()).toBeUndefined();
      const settled = await Promise.allSettled(
        calls.map((p, i) => ledger.consume({ proposalId: p.proposalId, now: T0 + 2 }, { ifWritten: i === 2 ? [INVALID] : [about(p, 'dispatch')] })),
      );
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      const states = await Promise.all(calls.map(async (p) => (await ledger.getProposal(p.proposalId))?.state));
      expect(states).toEqual(['dispatched', 'dispatched', 'proposed', 'dispatched']);
      const records = await audit.read();
      expect(records.map((r) => r.proposalId).sort()).toEqual([0, 1, 3].map((i) => calls[i]!.proposalId).sort());
      expect(verifyChain(records).ok).toBe(true);
    });
  });
}
