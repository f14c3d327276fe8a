import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import { runProviderOutputConformance } from '../../testing/provider-output-conformance.ts';

// The memory store; SQLite and Postgres run the same suite (provider-output.test.ts in each).
runProviderOutputConformance('memory', async () => {
  const audit = new MemoryAuditLog();
  return { ledger: new MemoryLedger({ audit }), audit };
});
