import { runDefinitionPinningConformance, runDefinitionStoreConformance } from '@countersign/core/testing';
import { openPostgresStore, type PostgresStore } from './open.ts';
import { describePg, TEST_PG_URL, tempStore } from './testing/test-database.ts';

describePg('postgres tool definitions and pins', () => {
  runDefinitionStoreConformance('postgres', async () => {
    const { store, schema, cleanup } = await tempStore();
    const others: PostgresStore[] = [];
    return {
      store: store.definitions,
      // A second pool on the same schema: what another replica sees.
      reopen: async () => {
        const other = await openPostgresStore({ connectionString: TEST_PG_URL, schema });
        others.push(other);
        return other.definitions;
      },
      cleanup: async () => {
        for (const other of others) await other.close();
        await cleanup();
      },
    };
  });

  runDefinitionPinningConformance('postgres', async () => {
    const { store, cleanup } = await tempStore();
    return { ledger: store.ledger, audit: store.audit, definitions: store.definitions, cleanup };
  });
});
