import { runSessionRevocationConformance } from '@countersign/core/testing';
import { openSqliteStore, type SqliteStore } from './open.ts';
import { tempStore } from './testing/temp-store.ts';

runSessionRevocationConformance('sqlite', async () => {
  const { store, path, cleanup } = tempStore();
  const others: SqliteStore[] = [];
  return {
    store: store.sessions,
    // Another connection on the same file: what a restarted process (or a second one) sees.
    reopen: async () => {
      const other = openSqliteStore({ path });
      others.push(other);
      return other.sessions;
    },
    cleanup: async () => {
      for (const other of others) await other.close();
      await cleanup();
    },
  };
});
