import { describeGateAttacks, inProcessAttackAdapter } from '@countersign/core/testing';
import { tempStore } from './testing/temp-store.ts';

describeGateAttacks('in-process gate, SQLite store', async () => {
  const t = tempStore();
  return inProcessAttackAdapter({ ledger: t.store.ledger, audit: t.store.audit, close: t.cleanup });
});
