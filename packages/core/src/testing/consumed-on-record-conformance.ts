import { describe, expect, it } from 'vitest';
import { LedgerError } from '../ledger/errors.ts';
import type { LedgerStore, ProposalInput } from '../ledger/types.ts';
import { SAMPLE_T0, sampleRequest, uid } from './ledger-samples.ts';

/**
 * Part of the ledger conformance suite: `recordProposal` with `consumedAt` records an
 * allowed call already consumed, in the same write (the gate's propose-and-authorize).
 * What it attacks: the consume it replaces (a second consume, an open-call lookup, a
 * second record of the same call, a call that waits for a person) must find the call spent
 * exactly as if `consume` had run, and never spend a call that needs approval.
 */
export function describeConsumedOnRecord(store: () => LedgerStore, proposal: (overrides?: Partial<ProposalInput>) => ProposalInput): void {
  describe('a call recorded consumed (consumedAt)', () => {
    const at = SAMPLE_T0 + 5;

    it('reads back dispatched at that time, by every read, and is never consumed again', async () => {
      const p = proposal();
      const recorded = await store().recordProposal(p, { consumedAt: at });
      expect(recorded).toMatchObject({ ok: true, created: true, proposal: { proposalId: p.proposalId, state: 'dispatched', dispatchedAt: at } });
      expect(await store().getProposal(p.proposalId)).toMatchObject({ state: 'dispatched', dispatchedAt: at });
      expect((await store().findProposalByCall(p.runId, p.callId))?.state).toBe('dispatched');
      expect((await store().getProposalWithRequest(p.proposalId))?.proposal.state).toBe('dispatched');
      // Not an open call for the recorded mode to find, and spent for any consume.
      expect(await store().findOpenCall(p.runId, p.toolName, p.argsDigest)).toBeUndefined();
      expect(await store().consume({ proposalId: p.proposalId, now: at + 1 })).toEqual({ ok: false, reason: 'already_consumed' });
      // Its result is recorded as any consumed call's.
      const result = { status: 'succeeded' as const, resultDigest: 'a'.repeat(64), at: at + 2 };
      expect(await store().recordResult(p.proposalId, result)).toMatchObject({ ok: true, created: true });
    });

    it('recording the same call again, consumed or not, is the idempotent repeat: nothing changes', async () => {
      const p = proposal();
      await store().recordProposal(p, { consumedAt: at });
      const again = await store().recordProposal({ ...p, proposalId: uid('prop') }, { consumedAt: at + 10 });
      expect(again).toMatchObject({ ok: true, created: false, proposal: { proposalId: p.proposalId, state: 'dispatched', dispatchedAt: at } });
      // A call first recorded `proposed` is not consumed by a later record of it.
      const open = proposal();
      await store().recordProposal(open);
      expect(await store().recordProposal({ ...open, proposalId: uid('prop') }, { consumedAt: at })).toMatchObject({ created: false, proposal: { state: 'proposed' } });
      expect((await store().getProposal(open.proposalId))?.state).toBe('proposed');
    });

    it('of concurrent records of one call, all consumed, exactly one is created (one grant)', async () => {
      const p = proposal();
      const tries = Array.from({ length: 20 }, () => store().recordProposal({ ...p, proposalId: uid('prop') }, { consumedAt: at }));
      const results = await Promise.all(tries);
      expect(results.filter((r) => r.ok && r.created)).toHaveLength(1);
      expect(results.every((r) => r.ok && r.proposal.state === 'dispatched')).toBe(true);
    });

    it('is refused with an approval request (a call that waits for a person is never spent first), and writes nothing', async () => {
      const p = proposal();
      const { proposalId: _, ...request } = sampleRequest(p.proposalId);
      await expect(store().recordProposal(p, { consumedAt: at, request })).rejects.toSatisfy((e) => e instanceof LedgerError && e.code === 'invalid_input');
      expect(await store().findProposalByCall(p.runId, p.callId)).toBeUndefined();
      await expect(store().recordProposal(proposal(), { consumedAt: Number.NaN })).rejects.toSatisfy((e) => e instanceof LedgerError && e.code === 'invalid_input');
    });
  });
}
