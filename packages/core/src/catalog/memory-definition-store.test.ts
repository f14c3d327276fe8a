import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import { MemoryLedger } from '../ledger/memory-ledger.ts';
import { runDefinitionPinningConformance } from '../testing/definition-pinning-conformance.ts';
import { runDefinitionStoreConformance } from '../testing/definition-store-conformance.ts';
import { MemoryDefinitionStore } from './memory-definition-store.ts';

runDefinitionStoreConformance('memory', async () => ({ store: new MemoryDefinitionStore() }));
runDefinitionPinningConformance('memory', async () => ({ ledger: new MemoryLedger(), audit: new MemoryAuditLog(), definitions: new MemoryDefinitionStore() }));
