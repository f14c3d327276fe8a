import { join } from 'node:path';
import { describeLifecycleModel, type KillableHarness, type LifecycleHarness, runKilledLifecycleModel } from '@countersign/core/testing';
import { expect, it } from 'vitest';
import { openPostgresStore } from './open.ts';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from './testing/test-database.ts';

/** A fresh schema per history; a restart ends the pool and opens the schema again, as after process death. */
async function postgresHarness(): Promise<LifecycleHarness> {
  return (await killablePostgres()).harness;
}

async function killablePostgres(): Promise<KillableHarness> {
  const schema = randomSchema();
  const harness: LifecycleHarness = {
    open: async () => {
      const store = await openPostgresStore({ connectionString: TEST_PG_URL, schema, pool: { max: 4 } });
      return { ledger: store.ledger, audit: store.audit, definitions: store.definitions, close: () => store.close() };
    },
    destroy: () => dropSchema(schema),
  };
  return { harness, location: JSON.stringify({ url: TEST_PG_URL, schema }) };
}

describePg('Postgres', () => {
  describeLifecycleModel('Postgres store', postgresHarness, { numRuns: 15, maxSteps: 30, timeoutMs: 60_000 });

  // A few fixed seeds for CI; `npm run soak` runs many more.
  it('a worker process running the gate on the schema is SIGKILLed between two steps or inside one; the model goes on from the reopened schema', async () => {
    const worker = join(import.meta.dirname, 'testing', 'lifecycle-worker.ts');
    const stats = await runKilledLifecycleModel({ harness: killablePostgres, worker, numRuns: 2, maxSteps: 20, seed: 32 });
    expect(stats.kills).toBe(2);
  }, 120_000);
});
