import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../digest.ts';
import type { LedgerStore, ProposalInput } from '../ledger/types.ts';

/**
 * Run ownership, part of the ledger conformance suite: a run belongs to the agent
 * that recorded its first call, decided atomically by the store.
 */
export function describeRunOwnership(store: () => LedgerStore, sample: (overrides?: Partial<ProposalInput>) => ProposalInput): void {
  describe('run ownership', () => {
    it('the first call of a run makes its agent the owner; the same agent adds calls freely', async () => {
      const first = sample({ agent: 'agent-a' });
      expect(await store().getRunOwner(first.runId)).toBeUndefined();
      expect(await store().recordProposal(first)).toMatchObject({ ok: true, created: true, proposal: { agent: 'agent-a' } });
      expect(await store().getRunOwner(first.runId)).toBe('agent-a');
      const second = sample({ runId: first.runId, agent: 'agent-a' });
      expect(await store().recordProposal(second)).toMatchObject({ ok: true, created: true });
      expect((await store().getProposal(second.proposalId))?.agent).toBe('agent-a');
    });

    it("another agent's call in an owned run is refused and changes nothing, even one identical to the owner's", async () => {
      const owned = sample({ agent: 'agent-a' });
      await store().recordProposal(owned);
      // Same call id and content: must not be answered as an idempotent re-record (that would hand over A's proposal).
      const replayed = await store().recordProposal({ ...owned, proposalId: `${owned.proposalId}-b`, agent: 'agent-b' });
      expect(replayed).toEqual({ ok: false, reason: 'run_owned_by_other_agent' });
      const drift = '{"amount":10000,"to":"mallory"}';
      const squat = sample({ runId: owned.runId, agent: 'agent-b', canonicalArgs: drift, argsDigest: sha256Hex(drift) });
      expect(await store().recordProposal(squat)).toEqual({ ok: false, reason: 'run_owned_by_other_agent' });
      expect(await store().getProposal(squat.proposalId)).toBeUndefined();
      expect(await store().findProposalByCall(squat.runId, squat.callId)).toBeUndefined();
      expect(await store().getRunOwner(owned.runId)).toBe('agent-a');
    });

    it('a squatter who records first owns the run: the honest agent is refused, its call never recorded', async () => {
      const squat = sample({ agent: 'agent-b' });
      await store().recordProposal(squat);
      const honest = await store().recordProposal({ ...squat, proposalId: `${squat.proposalId}-a`, agent: 'agent-a' });
      expect(honest).toEqual({ ok: false, reason: 'run_owned_by_other_agent' });
      expect((await store().findProposalByCall(squat.runId, squat.callId))?.agent).toBe('agent-b');
    });

    it('concurrent first calls of one run by different agents: exactly one agent owns it', async () => {
      for (let round = 0; round < 5; round++) {
        const runId = sample().runId;
        const agents = ['agent-a', 'agent-b', 'agent-c', 'agent-d'];
        // Each agent records two calls (its own call ids) at once, all racing for the new run.
        const inputs = agents.flatMap((agent) => [
          sample({ runId, agent, callId: `${agent}-1` }),
          sample({ runId, agent, callId: `${agent}-2` }),
        ]);
        const results = await Promise.all(inputs.map((input) => store().recordProposal(input)));
        const owner = await store().getRunOwner(runId);
        expect(agents).toContain(owner);
        results.forEach((result, i) => {
          if (inputs[i]!.agent === owner) expect(result).toMatchObject({ ok: true, created: true });
          else expect(result).toEqual({ ok: false, reason: 'run_owned_by_other_agent' });
        });
        for (const input of inputs) {
          const stored = await store().findProposalByCall(runId, input.callId);
          if (input.agent === owner) expect(stored?.agent).toBe(owner);
          else expect(stored).toBeUndefined();
        }
      }
    });

    it('concurrent first calls with the SAME call id by different agents: one recorded call, one owner', async () => {
      const base = sample();
      const inputs = ['agent-a', 'agent-b', 'agent-c'].map((agent) => ({ ...base, proposalId: `${base.proposalId}-${agent}`, agent }));
      const results = await Promise.all(inputs.map((input) => store().recordProposal(input)));
      const owner = await store().getRunOwner(base.runId);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect((await store().findProposalByCall(base.runId, base.callId))?.agent).toBe(owner);
    });
  });
}
