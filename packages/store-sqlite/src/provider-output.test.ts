import { runProviderOutputConformance } from '@countersign/core/testing';
import { tempStore } from './testing/temp-store.ts';

// A provider's output is one write (`recordProviderOutput`: the call marked run, its output, their records); no store change beyond executed_by (migration 12).
runProviderOutputConformance('sqlite', async () => {
  const { store, cleanup } = tempStore();
  return { ledger: store.ledger, audit: store.audit, cleanup };
});
