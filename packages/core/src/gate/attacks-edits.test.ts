import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import { MemoryLedger } from '../ledger/memory-ledger.ts';
import { runEditedCallConformance } from '../testing/edited-call-conformance.ts';

runEditedCallConformance('memory', async () => {
  const audit = new MemoryAuditLog();
  return { ledger: new MemoryLedger({ audit }), audit };
});
