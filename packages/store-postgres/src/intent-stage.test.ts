import { runIntentConformance } from '@countersign/core/testing';
import { describePg, tempStore } from './testing/test-database.ts';

// The gate's intent stage needs no store change: its verdict rides on the proposal, the approval request and the audit chain.
describePg('postgres: intent stage', () => {
  runIntentConformance('postgres', async () => {
    const { store, cleanup } = await tempStore();
    return { ledger: store.ledger, audit: store.audit, cleanup };
  });
});
