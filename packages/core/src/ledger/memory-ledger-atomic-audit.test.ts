import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import { runAtomicAuditConformance } from '../testing/atomic-audit-conformance.ts';
import { MemoryLedger } from './memory-ledger.ts';

runAtomicAuditConformance('memory', async () => {
  const audit = new MemoryAuditLog();
  return { ledger: new MemoryLedger({ audit }), audit };
});
