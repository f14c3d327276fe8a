// Worker process for the killed-process lifecycle histories (lifecycle-model.test.ts, npm run
// soak): runs the gate on the SQLite file at its first argument until the parent SIGKILLs it.
// Run with --conditions=countersign-source.
import { runLifecycleWorker } from '@countersign/core/testing/children';
import { openSqliteStore } from '../open.ts';

const [path] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: lifecycle-worker.ts <sqlite file>');
await runLifecycleWorker({
  open: async () => {
    const store = openSqliteStore({ path });
    return { ledger: store.ledger, audit: store.audit, definitions: store.definitions, close: () => store.close() };
  },
  destroy: async () => {},
});
