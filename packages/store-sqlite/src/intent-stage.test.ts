import { runIntentConformance } from '@countersign/core/testing';
import { tempStore } from './testing/temp-store.ts';

// The gate's intent stage needs no store change: its verdict rides on the proposal, the approval request and the audit chain.
runIntentConformance('sqlite', async () => {
  const { store, cleanup } = tempStore();
  return { ledger: store.ledger, audit: store.audit, cleanup };
});
