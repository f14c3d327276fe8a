import { runDefinitionPinningConformance, runDefinitionStoreConformance } from '@countersign/core/testing';
import { openSqliteStore, type SqliteStore } from './open.ts';
import { tempStore } from './testing/temp-store.ts';

runDefinitionStoreConformance('sqlite', async () => {
  const { store, path, cleanup } = tempStore();
  const others: SqliteStore[] = [];
  return {
    store: store.definitions,
    // Another connection on the same file: what a restarted process (or a second one) sees.
    reopen: async () => {
      const other = openSqliteStore({ path });
      others.push(other);
      return other.definitions;
    },
    cleanup: async () => {
      for (const other of others) await other.close();
      await cleanup();
    },
  };
});

runDefinitionPinningConformance('sqlite', async () => {
  const { store, cleanup } = tempStore();
  return { ledger: store.ledger, audit: store.audit, definitions: store.definitions, cleanup };
});
