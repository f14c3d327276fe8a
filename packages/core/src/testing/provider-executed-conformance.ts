import { describe, expect, it } from 'vitest';
import type { LedgerStore, ProposalInput } from '../ledger/types.ts';

/**
 * Part of the ledger conformance suite: a call the model's provider ran itself (a hosted
 * tool, `executedBy: 'provider'`) reads back as such through every read authorize and
 * the recorded mode use, so the gate refuses to run it again (`provider_executed`) on
 * every store. Any other call has no `executedBy` key.
 */
export function describeProviderExecuted(store: () => LedgerStore, proposal: (overrides?: Partial<ProposalInput>) => ProposalInput): void {
  describe('calls the provider executed', () => {
    it('a call the provider ran reads back executedBy: provider, by id, by call, with its request and as an open call', async () => {
      const p = proposal({ executedBy: 'provider' });
      expect(await store().recordProposal(p)).toMatchObject({ ok: true, proposal: { executedBy: 'provider' } });
      expect((await store().getProposal(p.proposalId))?.executedBy).toBe('provider');
      expect((await store().findProposalByCall(p.runId, p.callId))?.executedBy).toBe('provider');
      expect((await store().getProposalWithRequest(p.proposalId))?.proposal.executedBy).toBe('provider');
      expect((await store().findOpenCall(p.runId, p.toolName, p.argsDigest))?.executedBy).toBe('provider');
    });

    it('as an open call, a provider-run call comes after a newer runtime call of the same tool and arguments', async () => {
      const byProvider = proposal({ executedBy: 'provider' });
      const byRuntime = proposal({ runId: byProvider.runId, createdAt: byProvider.createdAt + 1 });
      for (const p of [byProvider, byRuntime]) await store().recordProposal(p);
      expect((await store().findOpenCall(byProvider.runId, byProvider.toolName, byProvider.argsDigest))?.proposalId).toBe(byRuntime.proposalId);
      expect(await store().consume({ proposalId: byRuntime.proposalId, now: byRuntime.createdAt + 1 })).toMatchObject({ ok: true });
      expect((await store().findOpenCall(byProvider.runId, byProvider.toolName, byProvider.argsDigest))?.proposalId).toBe(byProvider.proposalId);
    });

    it('a call the runtime runs has no executedBy', async () => {
      const p = proposal();
      await store().recordProposal(p);
      expect('executedBy' in ((await store().getProposal(p.proposalId)) ?? {})).toBe(false);
    });
  });
}
