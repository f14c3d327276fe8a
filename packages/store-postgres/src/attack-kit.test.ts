import { describeGateAttacks, inProcessAttackAdapter } from '@countersign/core/testing';
import { describePg, tempStore } from './testing/test-database.ts';

describePg('attack kit on postgres', () => {
  describeGateAttacks('in-process gate, Postgres store', async () => {
    const { store, cleanup } = await tempStore();
    return inProcessAttackAdapter({ ledger: store.ledger, audit: store.audit, close: cleanup });
  });
});
