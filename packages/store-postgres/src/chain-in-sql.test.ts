import { type AuditEvent, type AuditRecord, type AuditValue, buildRecord, canonicalRecordText, hashRecord, verifyChain } from '@countersign/core/audit';
import { sampleProposal } from '@countersign/core/testing';
import fc from 'fast-check';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainInsertParams, fillChained, joinColumn, joinParts, recordTextParts } from './chain-in-sql.ts';
import { createDatabase } from './open.ts';
import { ledgerSql } from './ledger-sql.ts';
import { PostgresAuditLog } from './postgres-audit-log.ts';
import { PostgresLedger } from './postgres-ledger.ts';
import { quoteSchema } from './schema-name.ts';
import { tempParts } from './testing/temp-parts.ts';
import { describePg, TEST_PG_URL } from './testing/test-database.ts';

const T0 = Date.UTC(2026, 0, 1);
const hex64 = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
// Strings that look like the top-level members the cut looks for, quotes and escapes
// included, plus any well-formed text.
const tricky = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom(`,"prevHash":"${'a'.repeat(64)}"`, ',"seq":1,', '","seq":1,"', '\\",\\"seq\\":1,', '\u0000\u2028\ud83d\ude00"\\', 'é'),
);
const detailKey = fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom('prevHash', 'seq', 'hash', 'a', 'zz'));
const detailValue: fc.Arbitrary<AuditValue> = fc.letrec<{ value: AuditValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(detailKey, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const eventArb: fc.Arbitrary<AuditEvent> = fc.record(
  {
    type: fc.constantFrom('proposal', 'verdict', 'dispatch', 'result', 'rejection'),
    at: fc.integer({ min: 0, max: 2 ** 45 }),
    runId: tricky,
    sessionId: tricky,
    callId: tricky,
    proposalId: tricky,
    requestId: tricky,
    toolName: tricky,
    argsDigest: hex64,
    actor: tricky,
    reason: tricky,
    detail: fc.dictionary(detailKey, detailValue, { maxKeys: 4 }),
  },
  { requiredKeys: ['type', 'at'] },
) as fc.Arbitrary<AuditEvent>;

/** The event as the store chains it: a validated copy, or undefined if core refuses it. */
function validCopy(event: AuditEvent): AuditRecord | undefined {
  try {
    return buildRecord(undefined, event);
  } catch {
    return undefined;
  }
}

describe('record text parts (no database)', () => {
  it('rejoined around any prevHash and seq, they are exactly the canonical text core hashes', () => {
    fc.assert(
      fc.property(eventArb, hex64, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (event, prevHash, seq) => {
        const record = validCopy(event);
        fc.pre(record !== undefined);
        expect(joinParts(recordTextParts(record!), prevHash, seq)).toBe(canonicalRecordText(prevHash, seq, record!));
      }),
      { numRuns: 400 },
    );
  });

  it('columns go to SQL joined by U+001F: no valid record holds it raw, and a value that does is refused, never split wrong', () => {
    fc.assert(
      fc.property(eventArb, (event) => {
        const record = validCopy(event);
        fc.pre(record !== undefined);
        // Text columns of one record: exactly one value each once split the way the statement splits.
        for (const column of chainInsertParams([record!], [recordTextParts(record!)])) {
          if (typeof column === 'string') expect(column.split('\x1f')).toHaveLength(1);
        }
      }),
      { numRuns: 300 },
    );
    expect(joinColumn(['a', 'b'])).toBe('a\x1fb');
    expect(() => joinColumn(['{"a":"x\x1fy"}'])).toThrow(/U\+001F/);
  });

  it('rows the database chained with a hash core does not compute are refused, not returned', () => {
    const records = [buildRecord(undefined, { type: 'dispatch', at: T0, callId: 'a' }), buildRecord(undefined, { type: 'result', at: T0, callId: 'a' })];
    const parts = records.map(recordTextParts);
    const first = { seq: 7, prev_hash: 'c'.repeat(64), hash: hashRecord('c'.repeat(64), 7, records[0]!) };
    const second = { seq: 8, prev_hash: first.hash, hash: hashRecord(first.hash, 8, records[1]!) };
    // As returned (RETURNING order is not guaranteed): sorted by seq, linked, hashes checked.
    expect(fillChained(records.map((r) => ({ ...r })), parts, [second, first]).map((r) => r.seq)).toEqual([7, 8]);
    expect(() => fillChained(records.map((r) => ({ ...r })), parts, [first, { ...second, hash: 'd'.repeat(64) }])).toThrow(/does not compute/);
    expect(() => fillChained(records.map((r) => ({ ...r })), parts, [first, { ...second, prev_hash: 'e'.repeat(64) }])).toThrow(/does not compute/);
    expect(() => fillChained(records.map((r) => ({ ...r })), parts, [first, { ...second, seq: 9 }])).toThrow(/does not compute/);
    expect(() => fillChained(records.map((r) => ({ ...r })), parts, [first])).toThrow(/1 of 2/);
    // Seq 1 must follow the genesis hash.
    const genesis = { seq: 1, prev_hash: 'f'.repeat(64), hash: hashRecord('f'.repeat(64), 1, records[0]!) };
    expect(() => fillChained([{ ...records[0]! }], parts.slice(0, 1), [genesis])).toThrow(/does not compute/);
  });
});

describePg('audit records chained in SQL', () => {
  let parts: Awaited<ReturnType<typeof tempParts>>;
  beforeAll(async () => {
    parts = await tempParts();
  });
  afterAll(() => parts.cleanup());

  it('any valid event, appended alone or with a ledger write: the database hashes exactly as core does', async () => {
    const { ledger, audit } = parts;
    const samples = fc.sample(eventArb, { numRuns: 150, seed: 8 }).filter((e) => validCopy(e) !== undefined);
    expect(samples.length).toBeGreaterThan(100);
    const returned: AuditRecord[] = [];
    // Half through audit.append (batched), half with ledger writes (AuditedBatch), interleaved.
    for (let i = 0; i < samples.length; i += 10) {
      const chunk = samples.slice(i, i + 10);
      const appended = await Promise.all(chunk.slice(0, 5).map((e) => audit.append(e)));
      const proposal = sampleProposal();
      let fromLedger: readonly AuditRecord[] = [];
      const stop = audit.onLedgerAppend((records) => {
        fromLedger = records;
      });
      await ledger.recordProposal(proposal, { audit: () => chunk.slice(5) });
      stop();
      returned.push(...appended, ...fromLedger);
    }
    const stored = await audit.read();
    expect(stored).toHaveLength(returned.length);
    expect(verifyChain(stored)).toMatchObject({ ok: true, count: stored.length });
    // What callers were handed is what is stored, hash for hash.
    expect([...returned].sort((a, b) => a.seq - b.seq).map((r) => r.hash)).toEqual(stored.map((r) => r.hash));
    for (const record of stored) expect(record.hash).toBe(hashRecord(record.prevHash, record.seq, record));
  });
});

describePg('the chain lock is taken last and held for the insert and COMMIT only', () => {
  it('a ledger write waiting for a row lock holds no chain lock: appends from this and another replica go on meanwhile', async () => {
    const { ledger, audit, schema, cleanup } = await tempParts();
    const other = createDatabase({ connectionString: TEST_PG_URL });
    const admin = new Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    try {
      const otherAudit = new PostgresAuditLog(other, quoteSchema(schema), schema);
      const otherLedger = new PostgresLedger(other, ledgerSql(quoteSchema(schema)), otherAudit);
      const proposal = sampleProposal();
      await ledger.recordProposal(proposal, { audit: () => [{ type: 'proposal', at: T0, callId: 'p' }] });
      // Someone else holds the proposal's row: our consume waits in its statements.
      await admin.query('BEGIN');
      await admin.query(`SELECT 1 FROM ${quoteSchema(schema)}.proposals WHERE proposal_id = $1 FOR UPDATE`, [proposal.proposalId]);
      let consumeDone = false;
      const consumed = ledger.consume({ proposalId: proposal.proposalId, now: T0 + 1 }, (c) => (c.ok ? [{ type: 'dispatch', at: T0 + 1, callId: 'p' }] : []));
      void consumed.finally(() => {
        consumeDone = true;
      });
      // Make sure the consume is really waiting on the row lock before appending.
      for (let i = 0; i < 200; i++) {
        const { rows } = await admin.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR NO KEY UPDATE%' AND pid <> pg_backend_pid()`,
        );
        if (rows[0].n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // With the lock taken first, these would wait for the admin's COMMIT (and this test would time out).
      const mine = await audit.append({ type: 'rejection', at: T0 + 2, callId: 'mine' });
      const theirs = await otherAudit.append({ type: 'rejection', at: T0 + 3, callId: 'theirs' });
      const theirProposal = sampleProposal();
      await otherLedger.recordProposal(theirProposal, { audit: () => [{ type: 'proposal', at: T0 + 4, callId: 'their-ledger' }] });
      expect(consumeDone).toBe(false);
      expect([mine.seq, theirs.seq]).toEqual([2, 3]);
      await admin.query('COMMIT');
      expect(await consumed).toMatchObject({ ok: true });
      const records = await audit.read();
      expect(records.map((r) => r.callId)).toEqual(['p', 'mine', 'theirs', 'their-ledger', 'p']);
      expect(verifyChain(records)).toMatchObject({ ok: true, count: 5 });
    } finally {
      await admin.end();
      await other.close();
      await cleanup();
    }
  });

  it('two replicas consuming the same calls in opposite orders: a deadlock victim is retried whole, each call runs once', async () => {
    const { ledger, audit, schema, cleanup } = await tempParts();
    // A short deadlock_timeout so victims are chosen quickly (the default is 1 s).
    const replicaDb = (name: string) => createDatabase({ connectionString: TEST_PG_URL, pool: { options: '-c deadlock_timeout=50ms', application_name: name } });
    const dbs = [replicaDb('a'), replicaDb('b')];
    try {
      const [a, b] = dbs.map((db) => {
        const log = new PostgresAuditLog(db, quoteSchema(schema), schema);
        return new PostgresLedger(db, ledgerSql(quoteSchema(schema)), log);
      }) as [PostgresLedger, PostgresLedger];
      for (let round = 0; round < 8; round++) {
        const calls = [sampleProposal(), sampleProposal(), sampleProposal()];
        for (const p of calls) await ledger.recordProposal(p);
        const consume = (on: PostgresLedger, p: (typeof calls)[number], who: string) =>
          on.consume({ proposalId: p.proposalId, now: T0 + round }, (c) => (c.ok ? [{ type: 'dispatch', at: T0 + round, callId: p.callId, actor: who }] : []));
        // Each replica's batch takes the rows in the opposite order.
        const reversed = [...calls].reverse();
        const [onA, onB] = await Promise.all([Promise.all(calls.map((p) => consume(a, p, 'a'))), Promise.all(reversed.map((p) => consume(b, p, 'b')))]);
        calls.forEach((p, i) => {
          const both = [onA[i]!, onB[reversed.indexOf(p)]!];
          expect(both.filter((o) => o.ok)).toHaveLength(1);
          expect(both.filter((o) => !o.ok)).toEqual([{ ok: false, reason: 'already_consumed' }]);
        });
      }
      const records = await audit.read();
      expect(records.filter((r) => r.type === 'dispatch')).toHaveLength(24);
      expect(new Set(records.map((r) => r.callId)).size).toBe(24);
      expect(verifyChain(records)).toMatchObject({ ok: true, count: 24 });
    } finally {
      for (const db of dbs) await db.close();
      await cleanup();
    }
  });
});

describePg('a database that encodes record text otherwise than core chains nothing', () => {
  // A session whose client_encoding is not UTF8 (ALTER ROLE … SET, PGCLIENTENCODING, a
  // pooler's default) reads this process's UTF-8 bytes as other characters: the text the
  // database hashes is not core's. The disagreement must stop the transaction before its
  // COMMIT; found only after it, the rows (and the ledger write with them) stay committed
  // under hashes verifyChain does not recompute, while the caller is told nothing was written.
  it('an append or audited ledger write whose text the database hashes differently is rolled back whole', async () => {
    const { schema, audit, ledger, cleanup } = await tempParts();
    const latin1 = createDatabase({ connectionString: TEST_PG_URL });
    // Queued on each new connection before anything the stores send on it.
    latin1.pool.on('connect', (client) => void client.query("SET client_encoding TO 'LATIN1'"));
    try {
      const quoted = quoteSchema(schema);
      const skewedAudit = new PostgresAuditLog(latin1, quoted, schema);
      const skewedLedger = new PostgresLedger(latin1, ledgerSql(quoted), skewedAudit);
      const event: AuditEvent = { type: 'rejection', at: T0, reason: 'x', detail: { note: 'café' } };
      await expect(skewedAudit.append(event)).rejects.toThrow(/otherwise than core/);
      const proposal = sampleProposal();
      await expect(skewedLedger.recordProposal(proposal, { audit: () => [event] })).rejects.toThrow(/otherwise than core/);
      // Nothing of either write is stored (read through a UTF-8 session).
      expect(await audit.read()).toEqual([]);
      expect(await ledger.getProposal(proposal.proposalId)).toBeUndefined();
      // ASCII text is the same bytes in both encodings: that session still chains it.
      await skewedAudit.append({ type: 'rejection', at: T0, reason: 'x', detail: { note: 'cafe' } });
      const stored = await audit.read();
      expect(stored).toHaveLength(1);
      expect(verifyChain(stored)).toMatchObject({ ok: true, count: 1 });
    } finally {
      await latin1.close();
      await cleanup();
    }
  });
});
