import { describe, expect, it } from 'vitest';
import type { LedgerStore, NewApprovalRequest, ProposalInput } from '../ledger/types.ts';

type Samples = {
  proposal: (overrides?: Partial<ProposalInput>) => ProposalInput;
  request: (proposalId: string, overrides?: Partial<NewApprovalRequest>) => NewApprovalRequest;
};

// Text a store must keep byte for byte: bidi override, zero-width space, newline, astral character, quote.
const AGENT_WORDS = 'Paying the invoice you asked for.\n\u202Etxt.exe\u200B — "ok" 🧾';

/**
 * What the approver's page reads besides the call, part of the ledger conformance suite:
 * the agent's own words about a call, the description of the rule that asked, and a
 * definition review's registering agent. Each is kept exactly as written and is absent (no
 * key) when not given.
 */
export function describeContextRecording(store: () => LedgerStore, samples: Samples): void {
  describe('proposal context and rule description', () => {
    it('keeps the agent context of a proposal and the rule description of its request exactly', async () => {
      const p = samples.proposal({ context: AGENT_WORDS });
      const { proposalId: _, ...request } = samples.request(p.proposalId, { ruleDescription: 'Payments over 1,000 need a second look.' });
      const recorded = await store().recordProposal(p, { request });
      expect(recorded).toMatchObject({ ok: true, proposal: { context: AGENT_WORDS } });
      expect((await store().getProposal(p.proposalId))?.context).toBe(AGENT_WORDS);
      const opened = await store().findApprovalRequestByProposal(p.proposalId);
      expect(opened?.ruleDescription).toBe('Payments over 1,000 need a second look.');
      expect((await store().getApprovalRequest(opened!.requestId))?.ruleDescription).toBe('Payments over 1,000 need a second look.');
    });

    it('a request opened on its own keeps its rule description; neither field appears when not given', async () => {
      const described = samples.proposal();
      await store().recordProposal(described);
      const req = await store().createApprovalRequest(samples.request(described.proposalId, { ruleDescription: 'Ask first.' }));
      expect(req.ruleDescription).toBe('Ask first.');
      const plain = samples.proposal();
      await store().recordProposal(plain);
      const bare = await store().createApprovalRequest(samples.request(plain.proposalId));
      expect('ruleDescription' in bare).toBe(false);
      expect('ruleDescription' in ((await store().getApprovalRequest(bare.requestId)) ?? {})).toBe(false);
      expect('context' in ((await store().getProposal(plain.proposalId)) ?? {})).toBe(false);
      expect('registeredBy' in ((await store().getProposal(plain.proposalId)) ?? {})).toBe(false);
    });

    it("a definition review's registering agent has its own field, kept exactly and apart from context", async () => {
      const review = samples.proposal({ registeredBy: 'agent-\u202Eruntime' });
      const recorded = await store().recordProposal(review);
      expect(recorded).toMatchObject({ ok: true, proposal: { registeredBy: 'agent-\u202Eruntime' } });
      const read = await store().getProposal(review.proposalId);
      expect(read?.registeredBy).toBe('agent-\u202Eruntime');
      expect('context' in (read ?? {})).toBe(false);
      expect((await store().findProposalByCall(review.runId, review.callId))?.registeredBy).toBe('agent-\u202Eruntime');
    });
  });
}
