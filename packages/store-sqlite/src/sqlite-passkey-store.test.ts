import { DatabaseSync } from 'node:sqlite';
import { runPasskeyStoreConformance, sampleProposal } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from './open.ts';
import { tempStore } from './testing/temp-store.ts';

runPasskeyStoreConformance('sqlite', async () => {
  const { store, path, cleanup } = tempStore();
  const others: SqliteStore[] = [];
  return {
    store: store.passkeys,
    // Another connection on the same file: what a restarted process (or a second one) sees.
    reopen: async () => {
      const other = openSqliteStore({ path });
      others.push(other);
      return other.passkeys;
    },
    cleanup: async () => {
      for (const other of others) await other.close();
      await cleanup();
    },
  };
});

describe('stored passkey evidence is read strictly', () => {
  it('a decision whose passkey column is not an assertion is a corrupt record, never a decision without one', async () => {
    const { store, path, cleanup } = tempStore();
    try {
      const proposal = sampleProposal();
      await store.ledger.recordProposal(proposal);
      const request = await store.ledger.createApprovalRequest({
        requestId: `req-${proposal.proposalId}`,
        proposalId: proposal.proposalId,
        createdAt: 0,
        expiresAt: 10_000,
        requiredApprovals: 1,
        eligible: { roles: ['finance'] },
        passkey: 'required',
      });
      const passkey = { credentialId: 'Y3JlZA', authenticatorData: 'YQ', clientDataJSON: 'Yw', signature: 'cw', rpId: 'localhost', origin: 'http://localhost' };
      await store.ledger.addDecision(request.requestId, { approver: 'fiona', decision: 'approve', at: 1, passkey }, { now: 1, tokenIdIfApproved: 't' });
      for (const forged of ['{"credentialId":"Y3JlZA"}', '"text"', '[]', JSON.stringify({ ...passkey, signature: 'not base64url!' })]) {
        const db = new DatabaseSync(path);
        db.prepare('UPDATE decisions SET passkey = ? WHERE request_id = ?').run(forged, request.requestId);
        db.close();
        await expect(store.ledger.getApprovalRequest(request.requestId)).rejects.toMatchObject({ code: 'corrupt_record' });
      }
      // The rule column takes nothing but 'required' or NULL.
      const db = new DatabaseSync(path);
      expect(() => db.prepare("UPDATE approval_requests SET passkey = 'optional' WHERE request_id = ?").run(request.requestId)).toThrow(/CHECK/);
      db.close();
    } finally {
      await cleanup();
    }
  });
});
