import { describe, expect, it } from 'vitest';
import type { LedgerStore, ProposalInput } from '../ledger/types.ts';

const T0 = Date.UTC(2026, 0, 1);
const DIGEST_A = 'a'.repeat(64);
const DIGEST_B = 'b'.repeat(64);

/**
 * A hosted tool's output (`LedgerStore.recordProviderOutput`), part of the ledger
 * conformance suite: one write marks the provider's call run and stores its output, once;
 * a repeat is idempotent, another output is refused and the first stands; a runtime's call
 * or an unknown one takes none; a malformed output is refused before anything is written.
 */
export function describeProviderOutputRecording(store: () => LedgerStore, sample: (overrides?: Partial<ProposalInput>) => ProposalInput): void {
  describe('provider output recording', () => {
    async function providerCall(): Promise<string> {
      const p = sample({ executedBy: 'provider' });
      await store().recordProposal(p);
      return p.proposalId;
    }

    it("marks the provider's call run and stores its output in one write; a repeat is idempotent, another output a conflict", async () => {
      const id = await providerCall();
      const output = { resultDigest: DIGEST_A, at: T0 + 5 };
      const result = { status: 'succeeded', resultDigest: DIGEST_A, at: T0 + 5 };
      expect(await store().recordProviderOutput(id, output)).toMatchObject({
        ok: true,
        created: true,
        dispatched: true,
        proposal: { proposalId: id, state: 'dispatched', dispatchedAt: T0 + 5, result },
      });
      expect(await store().getProposal(id)).toMatchObject({ state: 'dispatched', dispatchedAt: T0 + 5, result });
      expect(await store().recordProviderOutput(id, { ...output, at: T0 + 9 })).toMatchObject({ ok: true, created: false, dispatched: false });
      expect(await store().recordProviderOutput(id, { resultDigest: DIGEST_B, at: T0 + 9 })).toEqual({ ok: false, reason: 'conflict', existing: result });
      expect((await store().getProposal(id))?.result).toEqual(result);
    });

    it('a call already marked run without an output keeps its dispatch time and takes the output (dispatched: false)', async () => {
      const id = await providerCall();
      expect(await store().consume({ proposalId: id, now: T0 + 1 })).toMatchObject({ ok: true });
      expect(await store().recordProviderOutput(id, { resultDigest: DIGEST_A, at: T0 + 5 })).toMatchObject({ ok: true, created: true, dispatched: false });
      expect(await store().getProposal(id)).toMatchObject({ state: 'dispatched', dispatchedAt: T0 + 1, result: { resultDigest: DIGEST_A, at: T0 + 5 } });
    });

    it("refuses a runtime's call and an unknown call, changing nothing", async () => {
      const p = sample();
      await store().recordProposal(p);
      expect(await store().recordProviderOutput(p.proposalId, { resultDigest: DIGEST_A, at: T0 })).toEqual({ ok: false, reason: 'not_found' });
      expect(await store().getProposal(p.proposalId)).toMatchObject({ state: 'proposed' });
      expect((await store().getProposal(p.proposalId))?.result).toBeUndefined();
      expect(await store().recordProviderOutput('missing', { resultDigest: DIGEST_A, at: T0 })).toEqual({ ok: false, reason: 'not_found' });
    });

    it('refuses a malformed digest or time with invalid_input, changing nothing', async () => {
      const id = await providerCall();
      for (const output of [{ resultDigest: 'not-a-digest', at: T0 }, { resultDigest: DIGEST_A.toUpperCase(), at: T0 }, { resultDigest: DIGEST_A, at: Number.NaN }, { resultDigest: DIGEST_A, at: -1 }]) {
        await expect(store().recordProviderOutput(id, output)).rejects.toMatchObject({ code: 'invalid_input' });
      }
      expect(await store().getProposal(id)).toMatchObject({ state: 'proposed' });
      expect((await store().getProposal(id))?.result).toBeUndefined();
    });

    it('concurrent outputs for one call: exactly one is recorded, every other is told which', async () => {
      const id = await providerCall();
      const outputs = Array.from({ length: 20 }, (_, i) => ({ resultDigest: i.toString(16).padStart(64, '0'), at: T0 + i }));
      const outcomes = await Promise.all(outputs.map((o) => store().recordProviderOutput(id, o)));
      const winners = outcomes.filter((o) => o.ok && o.created);
      expect(winners).toHaveLength(1);
      expect(winners.filter((o) => o.ok && o.dispatched)).toHaveLength(1);
      const stored = (await store().getProposal(id))?.result;
      expect(outcomes.filter((o) => !o.ok && o.reason === 'conflict' && o.existing.resultDigest === stored?.resultDigest)).toHaveLength(19);
    });
  });
}
