import { runAuditConformance } from '../testing/audit-conformance.ts';
import { MemoryAuditLog } from './memory-audit-log.ts';

runAuditConformance('memory', async () => ({ log: new MemoryAuditLog() }));
