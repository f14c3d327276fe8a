import { join } from 'node:path';
import { verifyChain } from '@countersign/core/audit';
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

  async function approvals(count: number) {
    const list: { proposalId: string; requestId: string; tokenId: string }[] = [];
    for (let i = 0; i < count; i++) {
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
      const tokenId = `tok-${i}-${p.proposalId}`;
      await t.store.ledger.addDecision(requestId, { approver: 'alice', decision: 'approve', at: T0 }, { now: T0, tokenIdIfApproved: tokenId });
      list.push({ proposalId: p.proposalId, requestId, tokenId });
    }
    return list;
  }

  it.each([
    ['one attempt at a time', 'consume', 10, 5],
    ['every attempt at once, in group-committed batches', 'consume-burst', 100, 5],
  ])('4 processes racing to consume the same approvals (%s): each is consumed exactly once', async (_name, mode, count, attempts) => {
    const list = await approvals(count);
    const results = (await runChildren(CHILD, [0, 1, 2, 3].map(() => [mode, t.path, JSON.stringify(list), String(attempts)]))) as {
      won: string[];
      reasons: Record<string, number>;
    }[];
    const won = results.flatMap((r) => r.won);
    expect(won.sort()).toEqual(list.map((a) => a.proposalId).sort());
    const failures = results.reduce((n, r) => n + (r.reasons.already_consumed ?? 0), 0);
    expect(failures).toBe(4 * attempts * list.length - list.length);
    for (const a of list) {
      expect(await t.store.ledger.getApprovalRequest(a.requestId)).toMatchObject({ status: 'consumed' });
    }
  });

  it.each([
    ['one at a time', 'audit'],
    ['all at once, in group-committed batches', 'audit-burst'],
  ])('4 processes × 100 audit appends (%s) form one valid chain of 400, each in its submission order', async (_name, mode) => {
    const before = (await t.store.audit.head())?.seq ?? 0;
    const results = (await runChildren(CHILD, [0, 1, 2, 3].map((i) => [mode, t.path, '100', `proc-${i}`]))) as {
      seqs: number[];
    }[];
    const seqs = results.flatMap((r) => r.seqs);
    expect(new Set(seqs).size).toBe(400);
    for (const r of results) expect(r.seqs).toEqual([...r.seqs].sort((a, b) => a - b));
    const records = await t.store.audit.read();
    expect(records).toHaveLength(before + 400);
    expect(verifyChain(records, { anchor: (await t.store.audit.head())! })).toMatchObject({ ok: true, count: before + 400 });
    for (let i = 0; i < 4; i++) {
      const mine = records.filter((r) => r.seq > before && r.actor === `proc-${i}`);
      expect(mine.map((r) => r.callId)).toEqual(Array.from({ length: 100 }, (_, j) => `c${j}`));
    }
  });
});
