import { DatabaseSync } from 'node:sqlite';
import { sampleProposal } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { tempParts } from './testing/temp-parts.ts';
import { cleanupAfterEach } from './testing/cleanup-after-each.ts';

// getProposalWithRequest reads a proposal and its request with two statements; they must
// come from one snapshot, or another process (a second server on the same file) could
// commit between them and the pair would describe no state the ledger was ever in.
describe('sqlite readSnapshot', () => {
  const defer = cleanupAfterEach();
  function open() {
    const t = tempParts();
    const other = new DatabaseSync(t.path, { timeout: 5_000 });
    // In order: the second connection closes before the store's cleanup removes the file.
    defer(() => other.close());
    defer(t.cleanup);
    return { ...t, other };
  }
  const countProposals = (conn: ReturnType<typeof tempParts>['conn']) => Number(conn.statement('SELECT count(*) AS n FROM proposals').get()!.n);

  it("keeps one snapshot across its statements while another connection commits between them", async () => {
    const { conn, ledger, other } = open();
    await ledger.recordProposal(sampleProposal());
    const seen = conn.readSnapshot(() => {
      const before = countProposals(conn);
      other.prepare("UPDATE proposals SET context = 'changed behind the reader'").run();
      other.prepare("INSERT INTO proposals SELECT 'p-other', run_id, session_id, principal, 'c-other', tool_name, definition_digest, canonical_args, args_digest, model_response_ref, parent_proposal_id, created_at, state, dispatched_at, result_status, result_digest, result_at, agent, result_projections, context, registered_by, executed_by FROM proposals LIMIT 1").run();
      return { before, after: countProposals(conn), context: conn.statement('SELECT context FROM proposals LIMIT 1').get()!.context };
    });
    expect(seen).toEqual({ before: 1, after: 1, context: null });
    // Released: the next read sees the other connection's commit.
    expect(conn.read(() => countProposals(conn))).toBe(2);
  });

  it('releases its snapshot when the read throws, so later writes and reads proceed', async () => {
    const { conn, ledger, other } = open();
    expect(() =>
      conn.readSnapshot(() => {
        throw new Error('read failed');
      }),
    ).toThrow('read failed');
    await ledger.recordProposal(sampleProposal());
    other.prepare("UPDATE proposals SET context = 'x'").run();
    expect(conn.read(() => conn.statement('SELECT context FROM proposals').get()!.context)).toBe('x');
  });

  it('inside a write transaction reads within it, without starting another', async () => {
    const { conn, ledger } = open();
    const p = sampleProposal();
    await ledger.recordProposal(p);
    const count = await conn.write(() => conn.readSnapshot(() => countProposals(conn)));
    expect(count).toBe(1);
    expect((await ledger.getProposalWithRequest(p.proposalId))?.proposal.proposalId).toBe(p.proposalId);
  });
});
