import { createHash } from 'node:crypto';
import type { EditInput } from '@countersign/core/ledger';
import { sampleProposal } from '@countersign/core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PgDatabase, Query } from './database.ts';
import { ledgerSql } from './ledger-sql.ts';
import { PostgresLedger } from './postgres-ledger.ts';
import { quoteSchema } from './schema-name.ts';
import { describePg } from './testing/test-database.ts';
import { tempParts } from './testing/temp-parts.ts';

const T0 = Date.UTC(2026, 0, 1);

/** The database, except that inside transactions the statement `failing` fails (the connection dropping mid-edit). */
function failingDatabase(db: PgDatabase, failing: string): PgDatabase {
  return new Proxy(db, {
    get(target, key) {
      if (key !== 'transaction') {
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return <T>(fn: (query: Query) => Promise<T>) =>
        target.transaction((query) => {
          const broken: Query = (sql, params) => (sql === failing ? Promise.reject(new Error('write failed mid-edit')) : query(sql, params));
          return fn(broken);
        });
    },
  });
}

describePg('postgres recordEdit: one transaction', () => {
  let parts: Awaited<ReturnType<typeof tempParts>>;
  beforeAll(async () => {
    parts = await tempParts();
  });
  afterAll(() => parts.cleanup());

  it('a statement failing after the original was closed and the edited call inserted rolls back all of it', async () => {
    const original = sampleProposal();
    await parts.ledger.recordProposal(original);
    const request = await parts.ledger.createApprovalRequest({ requestId: 'req-1', proposalId: original.proposalId, createdAt: T0, expiresAt: T0 + 60_000, requiredApprovals: 1, eligible: {} });
    const args = '{"amount":5,"to":"alice"}';
    const edit: EditInput = {
      original: { requestId: request.requestId, decision: { approver: 'alice', decision: 'deny', at: T0 + 1, editedProposalId: 'edit-1' } },
      proposal: { ...original, proposalId: 'edit-1', callId: `${original.callId}~edit`, canonicalArgs: args, argsDigest: createHash('sha256').update(args).digest('hex'), parentProposalId: original.proposalId },
      request: { requestId: 'req-2', proposalId: 'edit-1', createdAt: T0 + 1, expiresAt: T0 + 60_000, requiredApprovals: 1, eligible: {} },
      editorApproval: { decision: { approver: 'alice', decision: 'approve', at: T0 + 1 }, tokenIdIfApproved: 'tok-1' },
      now: T0 + 1,
    };
    const sql = ledgerSql(quoteSchema(parts.schema));
    // The editor's approval is the last write: after the closing deny, the edited call and its request.
    const broken = new PostgresLedger(failingDatabase(parts.db, sql.approveRequest), sql);
    await expect(broken.recordEdit(edit)).rejects.toThrow('write failed mid-edit');
    expect(await parts.ledger.getApprovalRequest(request.requestId)).toEqual(request);
    expect(await parts.ledger.getProposal('edit-1')).toBeUndefined();
    expect(await parts.ledger.getApprovalRequest('req-2')).toBeUndefined();
    expect(await parts.ledger.recordEdit(edit)).toMatchObject({ ok: true, request: { status: 'approved' } });
  });
});
