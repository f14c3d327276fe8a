import { join } from 'node:path';
import { verifyChain } from '@countersign/core/audit';
import { sampleProposal } from '@countersign/core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PostgresStore } from './open.ts';
import { runChildren } from '@countersign/core/testing/children';
import { describePg, TEST_PG_URL, tempStore } from './testing/test-database.ts';

const CHILD = join(import.meta.dirname, 'testing', 'pg-child.ts');
const T0 = Date.UTC(2026, 0, 1);

describePg('postgres store shared by several processes', () => {
  let store: PostgresStore;
  let schema: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ store, schema, cleanup } = await tempStore());
  });
  afterAll(() => cleanup());

  async function approvals(count: number) {
    const approvals: { proposalId: string; requestId: string; tokenId: string }[] = [];
    for (let i = 0; i < count; i++) {
      const p = sampleProposal();
      await store.ledger.recordProposal(p);
      const requestId = `req-${p.proposalId}`;
      await store.ledger.createApprovalRequest({ requestId, proposalId: p.proposalId, createdAt: T0, expiresAt: T0 + 60_000, requiredApprovals: 1, eligible: {} });
      const tokenId = `tok-${p.proposalId}`;
      await store.ledger.addDecision(requestId, { approver: 'alice', decision: 'approve', at: T0 }, { now: T0, tokenIdIfApproved: tokenId });
      approvals.push({ proposalId: p.proposalId, requestId, tokenId });
    }
    return approvals;
  }

  it('4 processes × 5 attempts on 12 approvals at once, each consume with its dispatch record in one group-committed transaction: each consumed and recorded exactly once', async () => {
    const list = await approvals(12);
    const before = (await store.audit.head())?.seq ?? 0;
    const results = (await runChildren(CHILD, [0, 1, 2, 3].map(() => ['consume-audited', TEST_PG_URL, schema, JSON.stringify(list), '5']))) as {
      won: string[];
      reasons: Record<string, number>;
    }[];
    expect(results.flatMap((r) => r.won).sort()).toEqual(list.map((a) => a.proposalId).sort());
    expect(results.reduce((n, r) => n + (r.reasons.already_consumed ?? 0), 0)).toBe(4 * 5 * list.length - list.length);
    const records = (await store.audit.read({ afterSeq: before })).filter((r) => r.type === 'dispatch' && r.actor === 'child');
    expect(records.map((r) => r.proposalId).sort()).toEqual(list.map((a) => a.proposalId).sort());
    expect(verifyChain(await store.audit.read()).ok).toBe(true);
  });

  it('4 processes × 20 concurrent attempts on the same approvals: each consumed exactly once', async () => {
    const approvals: { proposalId: string; requestId: string; tokenId: string }[] = [];
    for (let i = 0; i < 10; i++) {
      const p = sampleProposal();
      await store.ledger.recordProposal(p);
      const requestId = `req-${p.proposalId}`;
      await store.ledger.createApprovalRequest({
        requestId,
        proposalId: p.proposalId,
        createdAt: T0,
        expiresAt: T0 + 60_000,
        requiredApprovals: 1,
        eligible: {},
      });
      const tokenId = `tok-${p.proposalId}`;
      await store.ledger.addDecision(requestId, { approver: 'alice', decision: 'approve', at: T0 }, { now: T0, tokenIdIfApproved: tokenId });
      approvals.push({ proposalId: p.proposalId, requestId, tokenId });
    }
    const args = JSON.stringify(approvals);
    const results = (await runChildren(CHILD, [0, 1, 2, 3].map(() => ['consume', TEST_PG_URL, schema, args, '20']))) as {
      won: string[];
      reasons: Record<string, number>;
    }[];
    expect(results.flatMap((r) => r.won).sort()).toEqual(approvals.map((a) => a.proposalId).sort());
    const alreadyConsumed = results.reduce((n, r) => n + (r.reasons.already_consumed ?? 0), 0);
    expect(alreadyConsumed).toBe(4 * 20 * approvals.length - approvals.length);
    for (const a of approvals) {
      expect(await store.ledger.getApprovalRequest(a.requestId)).toMatchObject({ status: 'consumed' });
    }
  });

  it('4 processes × 100 audit appends (10 in flight each, batched) form one valid chain of 400, each in submission order', async () => {
    const before = (await store.audit.head())?.seq ?? 0;
    const results = (await runChildren(CHILD, [0, 1, 2, 3].map((i) => ['audit', TEST_PG_URL, schema, '100', `proc-${i}`]))) as {
      seqs: number[];
    }[];
    expect(new Set(results.flatMap((r) => r.seqs)).size).toBe(400);
    for (const r of results) expect(r.seqs).toEqual([...r.seqs].sort((a, b) => a - b));
    const records = await store.audit.read();
    expect(records).toHaveLength(before + 400);
    expect(verifyChain(records, { anchor: (await store.audit.head())! })).toMatchObject({ ok: true, count: before + 400 });
    for (let i = 0; i < 4; i++) {
      const mine = records.filter((r) => r.seq > before && r.actor === `proc-${i}`);
      expect(mine.map((r) => r.callId)).toEqual(Array.from({ length: 100 }, (_, j) => `c${j}`));
    }
  });
});
