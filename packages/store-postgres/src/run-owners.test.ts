import { sampleProposal } from '@countersign/core/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ledgerSql } from './ledger-sql.ts';
import { migrate } from './migrations.ts';
import { createDatabase } from './open.ts';
import { PostgresAuditLog } from './postgres-audit-log.ts';
import { PostgresLedger } from './postgres-ledger.ts';
import { RunOwners } from './run-owners.ts';
import { quoteSchema } from './schema-name.ts';
import { describePg, TEST_PG_URL } from './testing/test-database.ts';
import { tempParts } from './testing/temp-parts.ts';

describe('RunOwners', () => {
  it('knows only the agent it was told, and forgets the oldest run past its bound', () => {
    const owners = new RunOwners();
    owners.remember('run-1', 'agent-a');
    expect(owners.owns('run-1', 'agent-a')).toBe(true);
    expect(owners.owns('run-1', 'agent-b')).toBe(false);
    expect(owners.owns('run-2', 'agent-a')).toBe(false);
    // First writer wins here too: a later remember never hands the run over.
    owners.remember('run-1', 'agent-b');
    expect(owners.owns('run-1', 'agent-a')).toBe(true);
    for (let i = 0; i < 5_000; i++) owners.remember(`other-${i}`, 'agent-a');
    expect(owners.owns('run-1', 'agent-a')).toBe(false);
    expect(owners.owns('other-4999', 'agent-a')).toBe(true);
  });
});

describePg('postgres ledger: the claim is skipped only for a run committed as the same agent’s', () => {
  let t: Awaited<ReturnType<typeof tempParts>>;
  /** A second replica on the same schema: its claims are invisible to t's RunOwners. */
  let replica: { ledger: PostgresLedger; close: () => Promise<void> };
  beforeAll(async () => {
    t = await tempParts();
    const db = createDatabase({ connectionString: TEST_PG_URL });
    await migrate(db, t.schema);
    const quoted = quoteSchema(t.schema);
    replica = { ledger: new PostgresLedger(db, ledgerSql(quoted), new PostgresAuditLog(db, quoted, t.schema)), close: () => db.close() };
  });
  afterAll(async () => {
    await replica?.close();
    await t?.cleanup();
  });

  /** Names of the prepared statements sent while `step` runs. */
  async function statementsOf(step: () => Promise<unknown>): Promise<(string | undefined)[]> {
    const connect = vi.spyOn(t.db.pool, 'connect');
    const write = vi.spyOn(t.db.pool, 'query');
    try {
      await step();
      return write.mock.calls.map(([config]) => (config as unknown as { name?: string }).name);
    } finally {
      connect.mockRestore();
      write.mockRestore();
    }
  }

  it('a later call of the same agent takes the plain insert; another agent’s call in that run is still refused', async () => {
    const sql = ledgerSql(quoteSchema(t.schema));
    const first = sampleProposal({ agent: 'agent-a' });
    expect(await statementsOf(() => t.ledger.recordProposal(first))).toEqual([sql.claimAndInsertProposal.name]);
    const second = sampleProposal({ runId: first.runId, agent: 'agent-a' });
    expect(await statementsOf(() => t.ledger.recordProposal(second))).toEqual([sql.insertOwnedProposal.name]);
    // The run is known as agent-a's: agent-b must not ride on that.
    const squat = sampleProposal({ runId: first.runId, agent: 'agent-b' });
    expect(await t.ledger.recordProposal(squat)).toEqual({ ok: false, reason: 'run_owned_by_other_agent' });
    expect(await t.ledger.getProposal(squat.proposalId)).toBeUndefined();
  });

  it('a claim rolled back with its transaction is not remembered: the replica that then claims the run owns it', async () => {
    const first = sampleProposal({ agent: 'agent-a' });
    // The claim runs, then the write fails on its audit event: the transaction, claim included, rolls back.
    await expect(t.ledger.recordProposal(first, { audit: () => [{ type: 'no-such-type', at: 1 } as never] })).rejects.toThrow();
    expect(await t.ledger.getRunOwner(first.runId)).toBeUndefined();
    const theirs = sampleProposal({ runId: first.runId, agent: 'agent-b' });
    expect(await replica.ledger.recordProposal(theirs)).toMatchObject({ ok: true, created: true });
    // Had the rolled-back claim been remembered, this would skip the claim and land in agent-b's run.
    const again = sampleProposal({ runId: first.runId, agent: 'agent-a' });
    expect(await t.ledger.recordProposal(again)).toEqual({ ok: false, reason: 'run_owned_by_other_agent' });
    expect(await t.ledger.getProposal(again.proposalId)).toBeUndefined();
  });

  it('a repeated call on the shortcut is answered from the stored call, as on the claim path', async () => {
    const first = sampleProposal({ agent: 'agent-a' });
    await t.ledger.recordProposal(first);
    const call = sampleProposal({ runId: first.runId, agent: 'agent-a' });
    const recorded = await t.ledger.recordProposal(call);
    expect(recorded).toMatchObject({ ok: true, created: true });
    expect(await t.ledger.recordProposal({ ...call, proposalId: `${call.proposalId}-again` })).toMatchObject({ ok: true, created: false, proposal: { proposalId: call.proposalId } });
    const drift = await t.ledger.recordProposal({ ...call, proposalId: `${call.proposalId}-drift`, canonicalArgs: '{"amount":99}' });
    expect(drift).toMatchObject({ ok: false, reason: 'conflict', existing: { proposalId: call.proposalId } });
  });
});
