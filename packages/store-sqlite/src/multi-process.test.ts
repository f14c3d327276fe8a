import { join } from 'node:path';
import { verifyChain } from '@countersign/core';
import { sampleProposal } from '@countersign/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChildren } from '@countersign/core/testing/children';
import { tempStore } from './testing/temp-store.ts';

const CHILD = join(import.meta.dirname, 'testing', 'sqlite-child.ts');
const T0 = Date.UTC(2026, 0, 1);

describe('sqlite store shared by several processes', () => {
  let t: ReturnType<typeof tempStore>;
  beforeAll(() => {
    t = tempStore();
  });
  afterAll(() => t.cleanup());

  it('4 processes racing to consume the same approvals: each is consumed exactly once', async () => {
    const approvals: { proposalId: string; requestId: string; tokenId: string }[] = [];
    for (let i = 0; i < 10; i++) {
      const p = sampleProposal();
      await t.store.ledger.recordProposal(p);
      const requestId = `req-mp-${i}-${p.proposalId}`;
      await t.store.ledger.createApprovalRequest({
        requestId,
        proposalId: p.proposalId,
        createdAt: T0,
        expiresAt: T0 + 60_000,
        requiredApprovals: 1,
        eligible: {},
      });
      const tokenId = `tok-${i}`;
      await t.store.ledger.addDecision(requestId, { approver: 'alice', decision: 'approve', at: T0 }, { now: T0, tokenIdIfApproved: tokenId });
      approvals.push({ proposalId: p.proposalId, requestId, tokenId });
    }
    const args = JSON.stringify(approvals);
    const results = (await runChildren(CHILD, [0, 1, 2, 3].map(() => ['consume', t.path, args, '5']))) as {
      won: string[];
      reasons: Record<string, number>;
    }[];
    const won = results.flatMap((r) => r.won);
    expect(won.sort()).toEqual(approvals.map((a) => a.proposalId).sort());
    const failures = results.reduce((n, r) => n + (r.reasons.already_consumed ?? 0), 0);
    expect(failures).toBe(4 * 5 * approvals.length - approvals.length);
    for (const a of approvals) {
      expect(await t.store.ledger.getApprovalRequest(a.requestId)).toMatchObject({ status: 'consumed' });
    }
  });

  it('4 processes × 100 audit appends form one valid chain of 400', async () => {
    const before = (await t.store.audit.head())?.seq ?? 0;
    const results = (await runChildren(CHILD, [0, 1, 2, 3].map((i) => ['audit', t.path, '100', `proc-${i}`]))) as {
      seqs: number[];
    }[];
    const seqs = results.flatMap((r) => r.seqs);
    expect(new Set(seqs).size).toBe(400);
    const records = await t.store.audit.read();
    expect(records).toHaveLength(before + 400);
    expect(verifyChain(records, { anchor: (await t.store.audit.head())! })).toMatchObject({ ok: true, count: before + 400 });
    for (let i = 0; i < 4; i++) expect(records.filter((r) => r.actor === `proc-${i}`)).toHaveLength(100);
  });
});
