import { sampleProposal } from '@countersign/core/testing';
import { afterEach, expect, it, vi } from 'vitest';
import { countSocketWrites } from './testing/socket-writes.ts';
import { tempParts } from './testing/temp-parts.ts';
import { describePg } from './testing/test-database.ts';

describePg('point reads of one turn of the event loop, grouped', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const c of cleanups.splice(0)) await c();
  });
  async function open() {
    const t = await tempParts();
    cleanups.push(t.cleanup);
    return t;
  }

  it('reads issued together share one connection and one socket write, and each gets its own row', async () => {
    const { db, ledger } = await open();
    const proposals = [sampleProposal(), sampleProposal(), sampleProposal(), sampleProposal()];
    for (const p of proposals) await ledger.recordProposal(p);
    const connect = vi.spyOn(db.pool, 'connect');
    const writes = countSocketWrites();
    const [found, missing] = await Promise.all([
      Promise.all(proposals.map((p) => ledger.getProposalWithRequest(p.proposalId))),
      ledger.getProposal('no-such-proposal'),
    ]);
    expect(found.map((f) => f?.proposal.proposalId)).toEqual(proposals.map((p) => p.proposalId));
    expect(missing).toBeUndefined();
    expect(connect).toHaveBeenCalledTimes(1);
    expect(writes()).toBe(1);
  });

  it('a read that fails on its own fails alone; the connection goes on serving', async () => {
    const { db } = await open();
    const outcomes = await Promise.allSettled([db.read('SELECT 1 AS one'), db.read('SELECT $1::int AS n', ['not a number']), db.read('SELECT 2 AS two')]);
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { rows: [{ one: 1 }] } });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { code: '22P02' } });
    expect(outcomes[2]).toMatchObject({ status: 'fulfilled', value: { rows: [{ two: 2 }] } });
    expect((await db.read('SELECT 3 AS three')).rows).toEqual([{ three: 3 }]);
  });
});
