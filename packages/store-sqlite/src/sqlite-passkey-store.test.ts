import { runPasskeyStoreConformance } from '@countersign/core/testing';
import { openSqliteStore, type SqliteStore } from './open.ts';
import { tempStore } from './testing/temp-store.ts';

runPasskeyStoreConformance('sqlite', async () => {
  const { store, path, cleanup } = tempStore();
  const others: SqliteStore[] = [];
  return {
    store: store.passkeys,
    // Another connection on the same file: what a restarted process (or a second one) sees.
    reopen: async () => {
      const other = openSqliteStore({ path });
      others.push(other);
      return other.passkeys;
    },
    cleanup: async () => {
      for (const other of others) await other.close();
      await cleanup();
    },
  };
});
