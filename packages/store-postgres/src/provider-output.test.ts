import { runProviderOutputConformance } from '@countersign/core/testing';
import { describePg, tempStore } from './testing/test-database.ts';

// A provider's output is one write (`recordProviderOutput`: the call marked run, its output, their records); no store change beyond executed_by (migration 13).
describePg('postgres: provider outputs', () => {
  runProviderOutputConformance('postgres', async () => {
    const { store, cleanup } = await tempStore();
    return { ledger: store.ledger, audit: store.audit, cleanup };
  });
});
