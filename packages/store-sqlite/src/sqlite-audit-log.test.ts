import { runAuditConformance } from '@countersign/core/testing';
import { tempStore } from './testing/temp-store.ts';

runAuditConformance('sqlite', async () => {
  const { store, cleanup } = tempStore();
  return { log: store.audit, cleanup };
});
