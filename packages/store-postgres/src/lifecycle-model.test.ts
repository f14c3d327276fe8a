import { describeLifecycleModel, type LifecycleHarness } from '@countersign/core/testing';
import { openPostgresStore } from './open.ts';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from './testing/test-database.ts';

/** A fresh schema per history; a restart ends the pool and opens the schema again, as after process death. */
async function postgresHarness(): Promise<LifecycleHarness> {
  const schema = randomSchema();
  return {
    open: async () => {
      const store = await openPostgresStore({ connectionString: TEST_PG_URL, schema, pool: { max: 4 } });
      return { ledger: store.ledger, audit: store.audit, definitions: store.definitions, close: () => store.close() };
    },
    destroy: () => dropSchema(schema),
  };
}

describePg('Postgres', () => {
  describeLifecycleModel('Postgres store', postgresHarness, { numRuns: 15, maxSteps: 30, timeoutMs: 60_000 });
});
