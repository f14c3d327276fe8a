import { runAuditConformance } from '@countersign/core/testing';
import { describePg, tempStore } from './testing/test-database.ts';

describePg('postgres audit log', () => {
  // A new schema per test: the suite expects an empty log each time.
  runAuditConformance('postgres', async () => {
    const { store, cleanup } = await tempStore();
    return { log: store.audit, cleanup };
  });
});
