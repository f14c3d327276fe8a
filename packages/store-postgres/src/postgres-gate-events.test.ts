import type { DeliveredEvent, GateEvent } from '@countersign/core/events';
import { Client } from 'pg';
import { afterEach, expect, it } from 'vitest';
import { openPostgresEvents, type PostgresGateEvents } from './postgres-gate-events.ts';
import { startTcpProxy, type TcpProxy } from './testing/tcp-proxy.ts';
import { describePg, randomSchema, TEST_PG_URL } from './testing/test-database.ts';

const decided = (requestId: string): Extract<GateEvent, { type: 'decided' }> => ({
  type: 'decided',
  at: 1,
  requestId,
  approver: 'fiona',
  decision: 'approve',
  status: 'approved',
  runId: 'run-1',
  proposalId: 'p-1',
  callId: 'call-1',
  toolName: 'transfer',
});

function record(bus: PostgresGateEvents): DeliveredEvent[] {
  const seen: DeliveredEvent[] = [];
  bus.subscribe((event) => {
    seen.push(event);
  });
  return seen;
}

async function notify(channel: string, payload: string): Promise<void> {
  const client = new Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    await client.query('SELECT pg_notify($1, $2)', [channel, payload]);
  } finally {
    await client.end();
  }
}

const open: PostgresGateEvents[] = [];
let proxy: TcpProxy | undefined;
afterEach(async () => {
  await Promise.all(open.splice(0).map((bus) => bus.close()));
  await proxy?.close();
  proxy = undefined;
});

async function bus(schema: string, connectionString = TEST_PG_URL): Promise<PostgresGateEvents> {
  const opened = await openPostgresEvents({ connectionString, schema, reconnectDelayMs: 50, healthCheckMs: 500 });
  open.push(opened);
  return opened;
}

describePg('PostgresGateEvents: LISTEN/NOTIFY between replicas', () => {
  it("delivers one replica's event to the others on the same schema, marked remote, and to its own listeners once", async () => {
    const schema = randomSchema();
    const [a, b, elsewhere] = await Promise.all([bus(schema), bus(schema), bus(randomSchema())]);
    const [seenA, seenB, seenElsewhere] = [record(a), record(b), record(elsewhere)];
    a.publish(decided('r-1'));
    await expect.poll(() => seenB.length).toBe(1);
    expect(seenB[0]).toEqual({ ...decided('r-1'), remote: true });
    // Give A's own NOTIFY time to come back: it must not be delivered a second time.
    b.publish(decided('r-2'));
    await expect.poll(() => seenA.length).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seenA).toEqual([decided('r-1'), { ...decided('r-2'), remote: true }]);
    expect(seenElsewhere).toEqual([]);
  });

  it('ignores malformed and unknown notifications on its channel', async () => {
    const schema = randomSchema();
    const a = await bus(schema);
    const seen = record(a);
    for (const payload of ['not json', '[]', '{"o":"x"}', '{"o":"x","e":{"type":"drop_tables"}}', '{"o":"x","e":[1]}']) {
      await notify(a.channel, payload);
    }
    await notify(a.channel, JSON.stringify({ o: 'x', e: decided('r-9') }));
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toMatchObject({ type: 'decided', requestId: 'r-9', remote: true });
  });

  it('an event too large for NOTIFY reaches the other replicas as a resync', async () => {
    const schema = randomSchema();
    const [a, b] = await Promise.all([bus(schema), bus(schema)]);
    const seen = record(b);
    a.publish({ ...decided('r-1'), requestId: 'x'.repeat(9000) });
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toMatchObject({ type: 'resync', remote: true });
  });

  it('reconnects its listener after the connection drops, tells local waiters to re-read, and hears events again', async () => {
    const target = new URL(TEST_PG_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(TEST_PG_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const schema = randomSchema();
    const [listening, publishing] = await Promise.all([bus(schema, viaProxy.href), bus(schema)]);
    const seen = record(listening);
    await proxy.cut('refuse');
    await expect.poll(() => listening.listening).toBe(false);
    publishing.publish(decided('lost'));
    // Sent (and gone) while the listener is down.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await proxy.restore();
    await expect.poll(() => seen.some((e) => e.type === 'resync'), { timeout: 5_000 }).toBe(true);
    expect(listening.listening).toBe(true);
    publishing.publish(decided('after'));
    await expect.poll(() => seen.some((e) => e.type === 'decided' && e.requestId === 'after')).toBe(true);
    expect(seen.some((e) => e.type === 'decided' && e.requestId === 'lost')).toBe(false);
  });

  it('a stalled listener (no error, no bytes) is noticed by the health check and replaced', async () => {
    const target = new URL(TEST_PG_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(TEST_PG_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const schema = randomSchema();
    const [listening, publishing] = await Promise.all([bus(schema, viaProxy.href), bus(schema)]);
    const seen = record(listening);
    await proxy.cut('stall');
    // Health check every 500 ms, query timeout 5 s: the stall shows within ~6 s.
    await expect.poll(() => listening.listening, { timeout: 8_000 }).toBe(false);
    await proxy.restore();
    await expect.poll(() => seen.some((e) => e.type === 'resync'), { timeout: 5_000 }).toBe(true);
    publishing.publish(decided('after-stall'));
    await expect.poll(() => seen.some((e) => e.type === 'decided' && e.requestId === 'after-stall')).toBe(true);
  }, 20_000);

  it('publish never throws or waits, even when the database is unreachable', async () => {
    const a = await openPostgresEvents({ connectionString: TEST_PG_URL, schema: randomSchema() });
    open.push(a);
    const seen = record(a);
    await a.close();
    a.publish(decided('after-close'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    // Local listeners still hear it: the operation happened in this process.
    expect(seen).toHaveLength(1);
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openPostgresEvents({ connectionString: TEST_PG_URL, schema: 'Bad"Schema' })).rejects.toThrow(/schema must match/);
  });
});
