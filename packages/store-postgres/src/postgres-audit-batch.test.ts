import { type AuditEvent, verifyChain } from '@countersign/core/audit';
import { LedgerError } from '@countersign/core/ledger';
import { Client } from 'pg';
import { afterEach, expect, it, vi } from 'vitest';
import { quoteSchema } from './schema-name.ts';
import { describePg, TEST_PG_URL } from './testing/test-database.ts';
import { tempParts } from './testing/temp-parts.ts';

const T0 = Date.UTC(2026, 0, 1);

describePg('postgres audit appends, batched', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const c of cleanups.splice(0)) await c();
  });
  async function open(options: Parameters<typeof tempParts>[0] = {}) {
    const t = await tempParts(options);
    cleanups.push(t.cleanup);
    return t;
  }

  it('appends submitted together: one transaction per batch, consecutive seqs in submission order, one chain', async () => {
    const { db, audit } = await open({ maxBatch: 64 });
    await audit.append({ type: 'proposal', at: T0 });
    const transaction = vi.spyOn(db, 'transactionWithTail');
    const events: AuditEvent[] = Array.from({ length: 300 }, (_, i) => ({ type: 'dispatch', at: T0 + i, callId: `call-${i}` }));
    events[150] = { type: 'not-a-type', at: T0 } as unknown as AuditEvent;
    const outcomes = await Promise.allSettled(events.map((e) => audit.append(e)));
    expect(transaction).toHaveBeenCalledTimes(Math.ceil(300 / 64));
    // The bad event is refused alone and takes no seq; its neighbours chain across it.
    expect(outcomes[150]).toMatchObject({ status: 'rejected', reason: { name: 'AuditLogError', code: 'invalid_event' } });
    const seqs = outcomes.flatMap((o, i) => (i !== 150 && o.status === 'fulfilled' ? [o.value.seq] : []));
    expect(seqs).toEqual(Array.from({ length: 299 }, (_, i) => i + 2));
    const stored = await audit.read();
    expect(stored.map((r) => r.callId)).toEqual([undefined, ...events.filter((_, i) => i !== 150).map((e) => e.callId)]);
    expect(verifyChain(stored, { anchor: (await audit.head())! })).toMatchObject({ ok: true, count: 300 });
    const returned = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(stored.slice(1)).toEqual(returned);
  });

  it('a batch whose COMMIT fails: every append in it is store_unavailable, none is written, the chain goes on', async () => {
    const { audit, schema } = await open();
    const first = await audit.append({ type: 'proposal', at: T0 });
    const admin = new Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    const s = quoteSchema(schema);
    try {
      // A deferred constraint trigger runs at COMMIT: one poisoned event fails its batch's COMMIT.
      await admin.query(`
        CREATE FUNCTION ${s}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'refused at commit'; END $$;
        CREATE CONSTRAINT TRIGGER refuse AFTER INSERT ON ${s}.audit_records
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
          WHEN (NEW.event::text LIKE '%poison%') EXECUTE FUNCTION ${s}.refuse();
      `);
      const outcomes = await Promise.allSettled([
        audit.append({ type: 'dispatch', at: T0 + 1, callId: 'innocent-1' }),
        audit.append({ type: 'dispatch', at: T0 + 2, callId: 'poison' }),
        audit.append({ type: 'dispatch', at: T0 + 3, callId: 'innocent-2' }),
      ]);
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        if (outcome.status === 'rejected') {
          expect(outcome.reason).toBeInstanceOf(LedgerError);
          expect(outcome.reason).toMatchObject({ code: 'store_unavailable' });
        }
      }
      expect(await audit.head()).toEqual({ seq: 1, hash: first.hash });
      await admin.query(`DROP TRIGGER refuse ON ${s}.audit_records`);
    } finally {
      await admin.end();
    }
    const next = await audit.append({ type: 'dispatch', at: T0 + 4, callId: 'after' });
    expect(next).toMatchObject({ seq: 2, prevHash: first.hash });
    expect(verifyChain(await audit.read())).toMatchObject({ ok: true, count: 2 });
  });

  it('an append submitted while a batch is in flight waits for the next batch, and chains after it', async () => {
    const { db, audit } = await open();
    const transaction = vi.spyOn(db, 'transactionWithTail');
    const early = [audit.append({ type: 'dispatch', at: T0, callId: 'a' }), audit.append({ type: 'dispatch', at: T0, callId: 'b' })];
    // Let the first batch start (its transaction is now in flight), then submit more.
    await new Promise((resolve) => setImmediate(resolve));
    expect(transaction).toHaveBeenCalledTimes(1);
    const late = [audit.append({ type: 'dispatch', at: T0, callId: 'c' }), audit.append({ type: 'dispatch', at: T0, callId: 'd' })];
    const records = await Promise.all([...early, ...late]);
    expect(transaction).toHaveBeenCalledTimes(2);
    expect(records.map((r) => [r.callId, r.seq])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ]);
  });
});
