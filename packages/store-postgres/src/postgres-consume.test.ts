import { type ConsumeInput, type ConsumeResult, LedgerError } from '@countersign/core/ledger';
import { sampleProposal } from '@countersign/core/testing';
import { Client } from 'pg';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { ledgerSql } from './ledger-sql.ts';
import { quoteSchema } from './schema-name.ts';
import { describePg, TEST_PG_URL } from './testing/test-database.ts';
import { tempParts } from './testing/temp-parts.ts';

const T0 = Date.UTC(2026, 0, 1);

describePg('postgres consume: one statement decides and explains', () => {
  let t: Awaited<ReturnType<typeof tempParts>>;
  let other: Client;
  beforeAll(async () => {
    t = await tempParts();
    other = new Client({ connectionString: TEST_PG_URL });
    await other.connect();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await other.query('ROLLBACK').catch(() => {});
  });
  afterAll(async () => {
    await other?.end();
    await t?.cleanup();
  });

  async function pending(expiresAt = T0 + 60_000) {
    const p = sampleProposal();
    await t.ledger.recordProposal(p);
    const requestId = `req-${p.proposalId}`;
    await t.ledger.createApprovalRequest({ requestId, proposalId: p.proposalId, createdAt: T0, expiresAt, requiredApprovals: 1, eligible: {} });
    return { proposalId: p.proposalId, requestId, tokenId: `tok-${p.proposalId}` };
  }

  async function approved(expiresAt = T0 + 60_000) {
    const a = await pending(expiresAt);
    await t.ledger.addDecision(a.requestId, { approver: 'alice', decision: 'approve', at: T0 }, { now: T0, tokenIdIfApproved: a.tokenId });
    return { ...a, approval: { requestId: a.requestId, tokenId: a.tokenId } };
  }

  /** Runs a consume and counts what it sent: statements on the pool, transactions opened. */
  async function counted(input: ConsumeInput): Promise<{ result: ConsumeResult; statements: number; transactions: number }> {
    const query = vi.spyOn(t.db.pool, 'query');
    const transaction = vi.spyOn(t.db, 'transaction');
    try {
      const result = await t.ledger.consume(input);
      return { result, statements: query.mock.calls.length, transactions: transaction.mock.calls.length };
    } finally {
      query.mockRestore();
      transaction.mockRestore();
    }
  }

  /** Waits until some backend is blocked by a lock `other` holds. */
  async function blockedOnLock(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const { rows } = await other.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))',
      );
      if (rows[0].n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('consume never blocked on the lock');
  }

  it('every outcome, success or failure, takes exactly one statement and no transaction', async () => {
    const won = await approved();
    const expired = await approved(T0 + 1_000);
    const revoked = await approved();
    await t.ledger.revokeApproval(revoked.requestId, T0 + 1);
    const mismatch = await approved();
    const unapproved = await pending();
    const foreign = await approved();
    const bare = sampleProposal();
    await t.ledger.recordProposal(bare);
    const now = T0 + 5_000;

    const cases: [ConsumeInput, ConsumeResult['ok'] | string][] = [
      [{ proposalId: won.proposalId, approval: won.approval, now }, true],
      [{ proposalId: won.proposalId, approval: won.approval, now }, 'already_consumed'],
      [{ proposalId: won.proposalId, now }, 'already_consumed'],
      [{ proposalId: expired.proposalId, approval: expired.approval, now }, 'expired'],
      [{ proposalId: revoked.proposalId, approval: revoked.approval, now }, 'revoked'],
      [{ proposalId: mismatch.proposalId, approval: { requestId: mismatch.requestId, tokenId: 'forged' }, now }, 'token_mismatch'],
      [{ proposalId: unapproved.proposalId, approval: { requestId: unapproved.requestId, tokenId: 'any' }, now }, 'not_approved'],
      [{ proposalId: bare.proposalId, approval: foreign.approval, now }, 'not_found'],
      [{ proposalId: bare.proposalId, approval: { requestId: 'missing', tokenId: 'x' }, now }, 'not_found'],
      [{ proposalId: 'missing', now }, 'not_found'],
      [{ proposalId: bare.proposalId, now }, true],
    ];
    for (const [input, expected] of cases) {
      const { result, statements, transactions } = await counted(input);
      expect(result.ok ? true : result.reason).toBe(expected);
      expect(statements).toBe(1);
      expect(transactions).toBe(0);
    }
    expect((await t.ledger.getApprovalRequest(won.requestId))?.status).toBe('consumed');
    expect((await t.ledger.getApprovalRequest(foreign.requestId))?.status).toBe('approved');
    for (const untouched of [expired, revoked, mismatch, unapproved]) {
      expect((await t.ledger.getProposal(untouched.proposalId))?.state).toBe('proposed');
    }
  });

  it('a loser that waited on the winner’s lock learns already_consumed from its own statement', async () => {
    const a = await approved();
    const consume = ledgerSql(quoteSchema(t.schema)).consume.text;
    // The winner: the same statement, in a transaction left open so the loser must wait.
    await other.query('BEGIN');
    const winner = await other.query(consume, [a.proposalId, a.requestId, a.tokenId, T0 + 1]);
    expect(winner.rows[0].proposal_id).toBe(a.proposalId);
    const loser = counted({ proposalId: a.proposalId, approval: a.approval, now: T0 + 1 });
    await blockedOnLock();
    await other.query('COMMIT');
    expect(await loser).toEqual({ result: { ok: false, reason: 'already_consumed' }, statements: 1, transactions: 0 });
    expect((await t.ledger.getApprovalRequest(a.requestId))?.status).toBe('consumed');
  });

  it('without an approval: a loser that waited on the winner’s lock learns already_consumed from its own (lean) statement', async () => {
    const p = sampleProposal();
    await t.ledger.recordProposal(p);
    const lean = ledgerSql(quoteSchema(t.schema)).consumeUnapproved.text;
    await other.query('BEGIN');
    const winner = await other.query(lean, [p.proposalId, T0 + 1]);
    expect(winner.rows[0]).toMatchObject({ proposal_id: p.proposalId, state: 'dispatched', proposal_locked: true });
    const loser = counted({ proposalId: p.proposalId, now: T0 + 1 });
    await blockedOnLock();
    await other.query('COMMIT');
    expect(await loser).toEqual({ result: { ok: false, reason: 'already_consumed' }, statements: 1, transactions: 0 });
  });

  it('a consume with an approval never takes the lean statement: the request is checked and moved with the proposal', async () => {
    // If the approval were dropped on the way to SQL, each of these would dispatch.
    const unapproved = await pending();
    const forged = await approved();
    const sent = vi.spyOn(t.db.pool, 'query');
    const refused = [
      await t.ledger.consume({ proposalId: unapproved.proposalId, approval: { requestId: unapproved.requestId, tokenId: unapproved.tokenId }, now: T0 + 1 }),
      await t.ledger.consume({ proposalId: forged.proposalId, approval: { requestId: forged.requestId, tokenId: 'forged' }, now: T0 + 1 }),
    ];
    const names = sent.mock.calls.map(([config]) => (config as unknown as { name?: string }).name);
    expect(refused.map((r) => (r.ok ? 'dispatched' : r.reason))).toEqual(['not_approved', 'token_mismatch']);
    expect(names).not.toContain(ledgerSql(quoteSchema(t.schema)).consumeUnapproved.name);
    const won = await t.ledger.consume({ proposalId: forged.proposalId, approval: forged.approval, now: T0 + 1 });
    expect(won.ok).toBe(true);
    expect((await t.ledger.getApprovalRequest(forged.requestId))?.status).toBe('consumed');
  });

  it('a revoke committed while consume waits for the proposal lock wins; the reason is read from the newest row', async () => {
    const a = await approved();
    // Hold the proposal lock, so consume's snapshot (request: approved) is older than what it finally locks.
    await other.query('BEGIN');
    await other.query(`SELECT 1 FROM ${quoteSchema(t.schema)}.proposals WHERE proposal_id = $1 FOR NO KEY UPDATE`, [a.proposalId]);
    const consuming = counted({ proposalId: a.proposalId, approval: a.approval, now: T0 + 1 });
    await blockedOnLock();
    // The ledger's own revoke statement, on a third connection so only consume's statements are counted.
    const revoker = new Client({ connectionString: TEST_PG_URL });
    await revoker.connect();
    const revoked = await revoker.query(ledgerSql(quoteSchema(t.schema)).revokeRequest, [a.requestId, T0 + 1]).finally(() => revoker.end());
    expect(revoked.rowCount).toBe(1);
    await other.query('ROLLBACK');
    expect(await consuming).toEqual({ result: { ok: false, reason: 'revoked' }, statements: 1, transactions: 0 });
    expect((await t.ledger.getProposal(a.proposalId))?.state).toBe('proposed');
    expect((await t.ledger.getApprovalRequest(a.requestId))?.status).toBe('revoked');
  });

  it('an approval committed while consume waits for the request lock is honoured, without a retry', async () => {
    const a = await pending();
    // The approval step of addDecision, held open: consume's snapshot still sees `pending`.
    await other.query('BEGIN');
    await other.query(
      `UPDATE ${quoteSchema(t.schema)}.approval_requests SET status = 'approved', token_id = $2, approved_at = $3 WHERE request_id = $1`,
      [a.requestId, a.tokenId, T0],
    );
    const consuming = counted({ proposalId: a.proposalId, approval: { requestId: a.requestId, tokenId: a.tokenId }, now: T0 + 1 });
    await blockedOnLock();
    await other.query('COMMIT');
    const { result, statements } = await consuming;
    expect(result).toMatchObject({ ok: true, proposal: { proposalId: a.proposalId, state: 'dispatched' } });
    expect(statements).toBe(1);
    expect((await t.ledger.getApprovalRequest(a.requestId))?.status).toBe('consumed');
  });

  it('a statement result that contradicts its own locks is a typed corrupt_record, never a success', async () => {
    const a = await approved();
    // As if the statement had locked an approved request yet not consumed it.
    vi.spyOn(t.db, 'query').mockResolvedValueOnce({
      rows: [
        {
          proposal_id: null,
          seen_state: 'proposed',
          proposal_locked: true,
          locked_request: { request_id: a.requestId, proposal_id: a.proposalId, status: 'approved', token_id: a.tokenId, expires_at: T0 + 60_000, created_at: T0, required_approvals: 1, eligible: {} },
        },
      ],
    } as never);
    await expect(t.ledger.consume({ proposalId: a.proposalId, approval: a.approval, now: T0 + 1 })).rejects.toSatisfy(
      (e) => e instanceof LedgerError && e.code === 'corrupt_record',
    );
  });
});
