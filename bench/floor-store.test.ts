import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePg, TEST_PG_URL } from '@countersign/store-postgres/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresFloor } from './floor-postgres.ts';
import { openSqliteFloor } from './floor-sqlite.ts';
import type { FloorStore } from './floor-store.ts';
import { floorServer } from './http-floor-server.ts';
import { floorTwo, JsonClient } from './http-flows.ts';

// The floor is a measuring stick, but one that must do the real work: a consume that
// could succeed twice, or a result written before (or without) a consume, would make the
// floor cheaper than what call-bound authorization needs.
function consumeOnce(open: () => Promise<FloorStore>): void {
  let store: FloorStore | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('consumes a proposal exactly once, concurrent consumes in one batch included', async () => {
    store = await open();
    const id = await store.propose('{"call":1}');
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => store!.consume(id)));
    expect(outcomes.filter((ok) => ok)).toHaveLength(1);
    expect(await store.consume(id)).toBe(false);
  });

  it('a proposal recorded consumed (one commit) is never consumed again, and takes its result once', async () => {
    store = await open();
    const id = await store.proposeConsumed('{"call":3}');
    expect(await store.consume(id)).toBe(false);
    const outcomes = await Promise.all([store.complete(id, '{"a":1}'), store.complete(id, '{"b":2}')]);
    expect(outcomes.filter((ok) => ok)).toHaveLength(1);
  });

  it('commits a result only after the consume, and only once', async () => {
    store = await open();
    const id = await store.propose('{"call":2}');
    expect(await store.complete(id, '{"early":true}')).toBe(false);
    expect(await store.consume(id)).toBe(true);
    const outcomes = await Promise.all([store.complete(id, '{"a":1}'), store.complete(id, '{"b":2}')]);
    expect(outcomes.filter((ok) => ok)).toHaveLength(1);
    expect(await store.complete(id, '{"c":3}')).toBe(false);
  });

  it('serves propose + dispatch over HTTP and refuses a second dispatch of the same proposal', async () => {
    store = await open();
    const server = floorServer(store);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const client = new JsonClient(port, 2);
    try {
      await floorTwo(client, 'call-1', 'run-1');
      const proposed = (await client.post('/floor/propose', { toolCalls: [] })) as { outcomes: [{ proposalId: string }] };
      const { proposalId } = proposed.outcomes[0];
      const twice = await Promise.allSettled([client.post('/floor/dispatch', { proposalId }), client.post('/floor/dispatch', { proposalId })]);
      expect(twice.filter((t) => t.status === 'fulfilled')).toHaveLength(1);
      expect(String((twice.find((t) => t.status === 'rejected') as PromiseRejectedResult).reason)).toContain('HTTP 409');
      expect(store.commits()).toBeGreaterThan(0);
    } finally {
      client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
}

for (const syncOffLoop of [false, true]) {
  describe(`SQLite floor${syncOffLoop ? ', syncOffLoop' : ''}`, () => {
    const dirs: string[] = [];
    afterEach(() => {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    });
    consumeOnce(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'countersign-floor-test-'));
      dirs.push(dir);
      return openSqliteFloor(join(dir, 'floor.sqlite'), { syncOffLoop });
    });
  });
}

for (const mode of ['batched', 'autocommit'] as const) {
  describePg(`Postgres floor, ${mode}`, () => {
    consumeOnce(() => openPostgresFloor(TEST_PG_URL, mode));
  });
}
