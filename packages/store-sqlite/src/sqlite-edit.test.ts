import { createHash } from 'node:crypto';
import type { StatementSync } from 'node:sqlite';
import type { EditInput } from '@countersign/core/ledger';
import { sampleProposal } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import type { SqliteConnection } from './connection.ts';
import { SqliteLedger } from './sqlite-ledger.ts';
import { tempParts } from './testing/temp-parts.ts';
import { cleanupAfterEach } from './testing/cleanup-after-each.ts';

const T0 = Date.UTC(2026, 0, 1);

/** The connection, except that statements matching `failing` throw when run (a write failing mid-edit). */
function failingConnection(conn: SqliteConnection, failing: RegExp): SqliteConnection {
  return new Proxy(conn, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== 'statement') return typeof value === 'function' ? value.bind(target) : value;
      return (sql: string): StatementSync => {
        const stmt = target.statement(sql);
        if (!failing.test(sql)) return stmt;
        return new Proxy(stmt, {
          get: (s, k) => (k === 'run' ? () => { throw new Error('disk I/O failed mid-edit'); } : Reflect.get(s, k, s)),
        });
      };
    },
  });
}

describe('sqlite recordEdit: one write job', () => {
  const defer = cleanupAfterEach();

  it('a write failing after the original was closed and the edited call inserted rolls back all of it', async () => {
    const parts = tempParts();
    defer(parts.cleanup);
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
    // The edited request's insert comes after the closing deny and the edited proposal.
    const broken = new SqliteLedger(failingConnection(parts.conn, /INSERT INTO approval_requests/));
    await expect(broken.recordEdit(edit)).rejects.toThrow('disk I/O failed mid-edit');
    expect(await parts.ledger.getApprovalRequest(request.requestId)).toEqual(request);
    expect(await parts.ledger.getProposal('edit-1')).toBeUndefined();
    expect(await parts.ledger.getApprovalRequest('req-2')).toBeUndefined();
    // Untouched, the request still takes the edit.
    expect(await parts.ledger.recordEdit(edit)).toMatchObject({ ok: true, request: { status: 'approved' } });
  });
});
