import { verifyChain } from '@countersign/core/audit';
import { sampleProposal } from '@countersign/core/testing';
import { afterEach, expect, it } from 'vitest';
import type { Query } from './database.ts';
import { ledgerSql } from './ledger-sql.ts';
import { decideIn } from './postgres-decide.ts';
import { quoteSchema } from './schema-name.ts';
import { describePg } from './testing/test-database.ts';
import { tempParts } from './testing/temp-parts.ts';

const T0 = Date.UTC(2026, 0, 1);

describePg('postgres decide: the decision decided in SQL under the request lock, sent in one round trip', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function opened(requiredApprovals: number) {
    const t = await tempParts();
    cleanups.push(t.cleanup);
    const proposal = sampleProposal();
    const requestId = `req-${proposal.proposalId}`;
    await t.ledger.recordProposal(proposal, {
      request: { requestId, createdAt: T0, expiresAt: T0 + 60_000, requiredApprovals, eligible: { approvers: ['alice', 'bob', 'carol'] } },
    });
    return { ...t, requestId };
  }

  it('a decision that waited for another one holding the request decides on what that one committed (the statement after the lock sees it)', async () => {
    const { db, ledger, audit, schema, requestId } = await opened(2);
    // Alice's decision, written but not committed: her transaction holds the request's lock.
    const client = await db.pool.connect();
    const query: Query = (sql, params) => (typeof sql === 'string' ? client.query(sql, params) : client.query({ name: sql.name, text: sql.text, values: params ?? [] })) as never;
    await client.query('BEGIN');
    const first = await decideIn(query, ledgerSql(quoteSchema(schema)), requestId, { approver: 'alice', decision: 'approve', at: T0 + 1 }, { now: T0 + 1, tokenIdIfApproved: 'tok-alice' });
    expect(first).toMatchObject({ ok: true, request: { status: 'pending' } });
    // Bob's, with the records of both statuses it can lead to, read before Alice's commit (she is not in its view).
    const byStatus = { pending: [{ type: 'decision' as const, at: T0 + 2, actor: 'bob', detail: { status: 'pending' } }], approved: [{ type: 'decision' as const, at: T0 + 2, actor: 'bob', detail: { status: 'approved' } }] };
    const second = ledger.addDecision(requestId, { approver: 'bob', decision: 'approve', at: T0 + 2 }, { now: T0 + 2, tokenIdIfApproved: 'tok-bob', audit: { byStatus } });
    // Wait (an event, not a time) until Bob's transaction is queued on the request's lock.
    for (let i = 0; i < 400 && !(await waitingOnLock(db.pool, schema)); i++) await new Promise((r) => setTimeout(r, 10));
    expect(await waitingOnLock(db.pool, schema)).toBe(true);
    await client.query('COMMIT');
    client.release();
    // Bob's decision counts Alice's: the request is approved, with his token, and his record says so.
    expect(await second).toMatchObject({ ok: true, request: { status: 'approved', tokenId: 'tok-bob', decisions: [{ approver: 'alice' }, { approver: 'bob' }] } });
    const records = await audit.read();
    expect(records.map((r) => [r.actor, r.detail?.status])).toEqual([['bob', 'approved']]);
    expect(verifyChain(records).ok).toBe(true);
  });

  it('refusals are decided in SQL and explained from the request as locked; nothing is written', async () => {
    const { ledger, requestId } = await opened(1);
    const decide = (approver: string, decision: string, now = T0 + 1) =>
      ledger.addDecision(requestId, { approver, decision: decision as 'approve', at: now }, { now, tokenIdIfApproved: `tok-${approver}` });
    // A value that is neither approve nor deny is refused, never counted (nor stored: the column's CHECK would fail the transaction).
    expect(await decide('alice', 'reject')).toEqual({ ok: false, reason: 'invalid_decision' });
    expect(await decide('alice', 'approve', T0 + 60_000)).toEqual({ ok: false, reason: 'expired' });
    expect(await ledger.getApprovalRequest(requestId)).toMatchObject({ status: 'pending', decisions: [] });
    expect(await decide('alice', 'approve')).toMatchObject({ ok: true, request: { status: 'approved', tokenId: 'tok-alice', approvedAt: T0 + 1 } });
    expect(await decide('bob', 'deny')).toEqual({ ok: false, reason: 'already_decided' });
    expect((await ledger.getApprovalRequest(requestId))?.decisions.map((d) => d.approver)).toEqual(['alice']);
    expect(await ledger.addDecision('no-such-request', { approver: 'alice', decision: 'approve', at: T0 }, { now: T0, tokenIdIfApproved: 't' })).toEqual({
      ok: false,
      reason: 'not_found',
    });
  });
});

/** Whether a statement on `schema` waits for a row lock (another session's). */
async function waitingOnLock(pool: { query: (sql: string, params: unknown[]) => Promise<{ rows: { waiting: boolean }[] }> }, schema: string): Promise<boolean> {
  const { rows } = await pool.query(
    `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND position($1 in query) > 0) AS waiting`,
    [schema],
  );
  return rows[0]?.waiting === true;
}
