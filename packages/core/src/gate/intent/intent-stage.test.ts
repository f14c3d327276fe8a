import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import { runIntentConformance } from '../../testing/intent-conformance.ts';

runIntentConformance('memory', async () => {
  const audit = new MemoryAuditLog();
  return { ledger: new MemoryLedger({ audit }), audit };
});
