import { runPasskeyStoreConformance } from '@countersign/core/testing';
import { openPostgresStore, type PostgresStore } from './open.ts';
import { describePg, TEST_PG_URL, tempStore } from './testing/test-database.ts';

describePg('postgres passkey store', () => {
  runPasskeyStoreConformance('postgres', async () => {
    const { store, schema, cleanup } = await tempStore();
    const others: PostgresStore[] = [];
    return {
      store: store.passkeys,
      // A second pool on the same schema: what another replica sees.
      reopen: async () => {
        const other = await openPostgresStore({ connectionString: TEST_PG_URL, schema });
        others.push(other);
        return other.passkeys;
      },
      cleanup: async () => {
        for (const other of others) await other.close();
        await cleanup();
      },
    };
  });
});
