import { type LifecycleHarness, runLifecycleModel } from '@countersign/core/testing';
import { it } from 'vitest';
import { openPostgresStore } from './open.ts';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from './testing/test-database.ts';

/** A fresh schema per history; a restart ends the pool and opens the schema again, as after process death. */
async function postgresHarness(): Promise<LifecycleHarness> {
  const schema = randomSchema();
  return {
    open: async () => {
      const store = await openPostgresStore({ connectionString: TEST_PG_URL, schema, pool: { max: 4 } });
      return { ledger: store.ledger, audit: store.audit, close: () => store.close() };
    },
    destroy: () => dropSchema(schema),
  };
}

describePg('the approval lifecycle model, Postgres store', () => {
  it('random histories with store faults and restarts from the database match the model', async () => {
    await runLifecycleModel({ harness: postgresHarness, numRuns: 15, maxSteps: 30, steps: { faults: true, restarts: true, concurrency: false } });
  }, 60_000);

  it('concurrent actions under a controlled scheduler are explained by some order of them', async () => {
    await runLifecycleModel({ harness: postgresHarness, numRuns: 15, maxSteps: 25, steps: { faults: false, restarts: false, concurrency: true } });
  }, 60_000);
});
