import { describe, expect, it } from 'vitest';
import type { LedgerStore, ProposalInput } from '../ledger/types.ts';
import { tryToEdit } from './ledger-samples.ts';

const T0 = Date.UTC(2026, 0, 1);
const DIGEST_A = 'a'.repeat(64);
const DIGEST_B = 'b'.repeat(64);

/**
 * Results, part of the ledger conformance suite: a dispatched call's result is
 * recorded once, atomically (compare-and-set); a repeat is idempotent, a different
 * result is refused and the first stands, on every backend and under concurrency.
 */
export function describeResultRecording(store: () => LedgerStore, sample: (overrides?: Partial<ProposalInput>) => ProposalInput): void {
  describe('result recording', () => {
    async function dispatched(): Promise<string> {
      const p = sample();
      await store().recordProposal(p);
      expect(await store().consume({ proposalId: p.proposalId, now: T0 })).toMatchObject({ ok: true });
      return p.proposalId;
    }

    it('records the result digest of a dispatched call', async () => {
      const id = await dispatched();
      const result = { status: 'succeeded' as const, resultDigest: DIGEST_B, at: T0 + 5 };
      expect(await store().recordResult(id, result)).toEqual({ ok: true, created: true, result });
      expect((await store().getProposal(id))?.result).toEqual(result);
    });

    it('stores the relay projections with the result, reads them back as written and shares no object with the caller', async () => {
      const id = await dispatched();
      const projections = { json: DIGEST_A, mcp_text: DIGEST_B, mcp_content: 'c'.repeat(64) };
      const result = { status: 'succeeded' as const, resultDigest: DIGEST_A, projections, at: T0 + 5 };
      expect(await store().recordResult(id, result)).toEqual({ ok: true, created: true, result });
      const read = (await store().getProposal(id))?.result;
      expect(read).toEqual(result);
      tryToEdit(() => {
        (read?.projections as Record<string, string>).json = DIGEST_B;
      });
      expect((await store().getProposal(id))?.result?.projections).toEqual(projections);
      // A repeat answers with the stored projections; the first result stands.
      expect(await store().recordResult(id, { ...result, projections: { json: DIGEST_A }, at: T0 + 9 })).toEqual({ ok: true, created: false, result });
    });

    it('the same result again is idempotent; a different one is a conflict and the first stands', async () => {
      const id = await dispatched();
      const first = { status: 'succeeded' as const, resultDigest: DIGEST_A, at: T0 + 5 };
      await store().recordResult(id, first);
      expect(await store().recordResult(id, { ...first, at: T0 + 9 })).toEqual({ ok: true, created: false, result: first });
      expect(await store().recordResult(id, { ...first, resultDigest: DIGEST_B })).toEqual({ ok: false, reason: 'conflict', existing: first });
      expect(await store().recordResult(id, { ...first, status: 'failed' })).toEqual({ ok: false, reason: 'conflict', existing: first });
      expect((await store().getProposal(id))?.result).toEqual(first);
    });

    it('refuses a call that was never dispatched, and an unknown call, changing nothing', async () => {
      const p = sample();
      await store().recordProposal(p);
      const result = { status: 'failed' as const, resultDigest: DIGEST_A, at: T0 };
      expect(await store().recordResult(p.proposalId, result)).toEqual({ ok: false, reason: 'not_dispatched' });
      expect((await store().getProposal(p.proposalId))?.result).toBeUndefined();
      expect(await store().recordResult('missing', result)).toEqual({ ok: false, reason: 'not_found' });
    });

    it('concurrent results for one call: exactly one is recorded, every other is told which', async () => {
      const id = await dispatched();
      const attempts = Array.from({ length: 50 }, (_, i) => ({
        status: i % 2 === 0 ? ('succeeded' as const) : ('failed' as const),
        resultDigest: i.toString(16).padStart(64, '0'),
        at: T0 + i,
      }));
      const outcomes = await Promise.all(attempts.map((r) => store().recordResult(id, r)));
      const winners = outcomes.filter((o) => o.ok && o.created);
      expect(winners).toHaveLength(1);
      const stored = (await store().getProposal(id))?.result;
      expect(winners[0]).toMatchObject({ result: stored });
      expect(outcomes.filter((o) => !o.ok && o.reason === 'conflict' && o.existing.resultDigest === stored?.resultDigest)).toHaveLength(49);
    });
  });
}
