import { type AuditEvent, verifyChain } from '@countersign/core/audit';
import type { ProposalInput } from '@countersign/core/ledger';
import { makeGateFixture, sampleProposal } from '@countersign/core/testing';
import { afterEach, expect, it } from 'vitest';
import { ledgerSql } from './ledger-sql.ts';
import { createDatabase } from './open.ts';
import { PostgresAuditLog } from './postgres-audit-log.ts';
import { PostgresLedger } from './postgres-ledger.ts';
import { quoteSchema } from './schema-name.ts';
import { countRoundTrips } from './testing/round-trip-counter.ts';
import { tempParts } from './testing/temp-parts.ts';
import { describePg, TEST_PG_URL } from './testing/test-database.ts';

const T0 = Date.UTC(2026, 0, 1);
const event = (callId: string): AuditEvent => ({ type: 'proposal', at: T0, callId });
/** The records of a new call, known before the write (as core's propose sends them). */
const ifWritten = (...callIds: string[]) => ({ ifWritten: callIds.map(event) });
const requestFor = (requestId: string) => ({ requestId, createdAt: T0, expiresAt: T0 + 60_000, requiredApprovals: 1, eligible: { approvers: ['alice'] } });

// Issue #31: recordProposal with its records given as `AuditIfWritten` sends the insert, the
// chain's lock, the conditional audit insert and COMMIT in one round trip; the records are
// appended in SQL only if the insert recorded the call. These attack that shape.
describePg('recordProposal with its records sent behind the insert (Postgres)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  async function open() {
    const t = await tempParts();
    cleanups.push(t.cleanup);
    return t;
  }
  function replica(schema: string) {
    const db = createDatabase({ connectionString: TEST_PG_URL });
    cleanups.push(() => db.close());
    const audit = new PostgresAuditLog(db, quoteSchema(schema), schema);
    return new PostgresLedger(db, ledgerSql(quoteSchema(schema)), audit);
  }
  /** Makes the database refuse any audit record whose event mentions `word` (as a constraint or disk error would). */
  async function refuseRecords(db: Awaited<ReturnType<typeof open>>['db'], schema: string, word: string) {
    await db.query(`CREATE FUNCTION "${schema}".refuse_it() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'record refused'; END $$;
      CREATE TRIGGER refuse_it BEFORE INSERT ON "${schema}".audit_records FOR EACH ROW
      WHEN (NEW.event::text LIKE '%${word}%') EXECUTE FUNCTION "${schema}".refuse_it()`);
  }

  it('one round trip, for the first call of a run (the claim) and the next ones, with or without a request', async () => {
    const { ledger, audit } = await open();
    const measure = countRoundTrips();
    const runId = 'run-one-trip';
    const first = await measure(() => ledger.recordProposal(sampleProposal({ runId }), { request: requestFor('req-first'), audit: ifWritten('first') }));
    expect(first.value).toMatchObject({ ok: true, created: true, request: { requestId: 'req-first', status: 'pending', decisions: [] } });
    const owned = await measure(() => ledger.recordProposal(sampleProposal({ runId }), { request: requestFor('req-owned'), audit: ifWritten('owned') }));
    expect(owned.value).toMatchObject({ ok: true, created: true, request: { requestId: 'req-owned' } });
    const plain = await measure(() => ledger.recordProposal(sampleProposal({ runId }), { audit: ifWritten('plain') }));
    expect(plain.value).toMatchObject({ ok: true, created: true });
    const consumed = await measure(() => ledger.recordProposal(sampleProposal({ runId: 'run-other' }), { consumedAt: T0, audit: ifWritten('consumed') }));
    expect(consumed.value).toMatchObject({ ok: true, created: true, proposal: { state: 'dispatched', dispatchedAt: T0 } });
    expect([first, owned, plain, consumed].map((c) => c.trips)).toEqual([1, 1, 1, 1]);
    const records = await audit.read();
    expect(records.map((r) => r.callId)).toEqual(['first', 'owned', 'plain', 'consumed']);
    expect(verifyChain(records)).toMatchObject({ ok: true, count: 4 });
  });

  it.each([
    ['the first call of a run (claim)', false, false],
    ['the first call of a run with its request', false, true],
    ['a call of a run already owned', true, false],
    ['a call of a run already owned, with its request', true, true],
  ])('%s whose audit record the database refuses commits nothing: no call, no request, no run claimed', async (_, ownedFirst, withRequest) => {
    const { db, ledger, audit, schema } = await open();
    await refuseRecords(db, schema, 'boom');
    const runId = `run-refused-${ownedFirst}-${withRequest}`;
    if (ownedFirst) await ledger.recordProposal(sampleProposal({ runId }), { audit: ifWritten('owner') });
    const p = sampleProposal({ runId });
    const options = withRequest ? { request: requestFor(`req-${p.proposalId}`) } : {};
    await expect(ledger.recordProposal(p, { ...options, audit: ifWritten('boom') })).rejects.toThrow(/record refused/);
    expect(await ledger.getProposal(p.proposalId)).toBeUndefined();
    expect(await ledger.getApprovalRequest(`req-${p.proposalId}`)).toBeUndefined();
    expect(await ledger.getRunOwner(runId)).toBe(ownedFirst ? p.agent : undefined);
    // The same call again, with a record the database takes: recorded once, with its record.
    expect(await ledger.recordProposal(p, { ...options, audit: ifWritten('again') })).toMatchObject({ ok: true, created: true });
    const records = await audit.read();
    expect(records.map((r) => r.callId)).toEqual([...(ownedFirst ? ['owner'] : []), 'again']);
    expect(verifyChain(records).ok).toBe(true);
  });

  it('the same call again (a retried propose) answers as before: the stored call, created false, no record, no request; other content is a conflict', async () => {
    const { ledger, audit } = await open();
    const runId = 'run-repeat';
    const p = sampleProposal({ runId });
    const opened = await ledger.recordProposal(p, { request: requestFor('req-p'), audit: ifWritten('p') });
    expect(opened).toMatchObject({ ok: true, created: true });
    const stored = await ledger.getProposal(p.proposalId);
    // Same call id, same content, a new proposal id (what a retried propose sends).
    const again: ProposalInput = { ...p, proposalId: `${p.proposalId}-again` };
    const repeated = await ledger.recordProposal(again, { request: requestFor('req-again'), audit: ifWritten('again') });
    expect(repeated).toEqual({ ok: true, proposal: stored, created: false });
    expect(await ledger.getApprovalRequest('req-again')).toBeUndefined();
    const conflicting = await ledger.recordProposal({ ...again, argsDigest: 'f'.repeat(64), canonicalArgs: '{"other":1}' }, { audit: ifWritten('conflict') });
    expect(conflicting).toEqual({ ok: false, reason: 'conflict', existing: stored });
    expect((await audit.read()).map((r) => r.callId)).toEqual(['p']);
  });

  it('a taken proposal id (another call) is duplicate_id, and a taken request id records no call', async () => {
    const { ledger, audit } = await open();
    const runId = 'run-taken';
    const p = sampleProposal({ runId });
    await ledger.recordProposal(p, { request: requestFor('req-taken'), audit: ifWritten('p') });
    await expect(ledger.recordProposal({ ...sampleProposal({ runId }), proposalId: p.proposalId }, { audit: ifWritten('dup') })).rejects.toMatchObject({ code: 'duplicate_id' });
    const clash = sampleProposal({ runId });
    await expect(ledger.recordProposal(clash, { request: requestFor('req-taken'), audit: ifWritten('clash') })).rejects.toMatchObject({ code: 'duplicate_id' });
    expect(await ledger.getProposal(clash.proposalId)).toBeUndefined();
    // The first call of a new run whose request id is taken: neither the call nor the run's claim is kept.
    const fresh = sampleProposal({ runId: 'run-taken-fresh' });
    await expect(ledger.recordProposal(fresh, { request: requestFor('req-taken'), audit: ifWritten('fresh') })).rejects.toMatchObject({ code: 'duplicate_id' });
    expect(await ledger.getProposal(fresh.proposalId)).toBeUndefined();
    expect(await ledger.getRunOwner('run-taken-fresh')).toBeUndefined();
    expect((await audit.read()).map((r) => r.callId)).toEqual(['p']);
  });

  it('first calls of one new run from two replicas at once: one agent owns the run; the same agent gets both calls recorded, each with its record', async () => {
    const a = await open();
    const b = replica(a.schema);
    for (let i = 0; i < 15; i++) {
      const runId = `run-race-${i}`;
      const [x, y] = await Promise.all([
        a.ledger.recordProposal(sampleProposal({ runId, agent: 'agent-a' }), { audit: ifWritten(`a-${i}`) }),
        b.recordProposal(sampleProposal({ runId, agent: 'agent-b' }), { audit: ifWritten(`b-${i}`) }),
      ]);
      expect([x, y].filter((o) => o.ok)).toHaveLength(1);
      expect([x, y].filter((o) => !o.ok)).toEqual([{ ok: false, reason: 'run_owned_by_other_agent' }]);
      const same = `run-same-${i}`;
      const [s, t] = await Promise.all([
        a.ledger.recordProposal(sampleProposal({ runId: same, agent: 'agent-a' }), { audit: ifWritten(`s-${i}`) }),
        b.recordProposal(sampleProposal({ runId: same, agent: 'agent-a' }), { audit: ifWritten(`t-${i}`) }),
      ]);
      expect([s, t]).toMatchObject([
        { ok: true, created: true },
        { ok: true, created: true },
      ]);
    }
    const records = await a.audit.read();
    // One record per call recorded: the winner of each contested run, and both calls of each shared one.
    expect(records).toHaveLength(15 * 3);
    expect(verifyChain(records).ok).toBe(true);
  });

  it("through the gate: a propose retried with the same call id answers as the first, and the chain holds the call's one record", async () => {
    const { ledger, audit } = await open();
    const f = makeGateFixture({ ledger, audit });
    const call = f.call({ arguments: '{"amount":500,"to":"alice"}' });
    const first = await f.gate.propose(call);
    const second = await f.gate.propose(call);
    if (first.status !== 'approval_required') throw new Error(`expected approval_required, got ${first.status}`);
    expect(second).toMatchObject({ status: 'approval_required', proposalId: first.proposalId, requestId: first.requestId });
    const records = await audit.read();
    expect(records.filter((r) => r.type === 'proposal' && r.callId === call.callId)).toHaveLength(1);
    expect(verifyChain(records).ok).toBe(true);
  });
});
