import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import { runPasskeyStoreConformance } from '../testing/passkey-store-conformance.ts';
import { MemoryPasskeyStore } from './memory-passkey-store.ts';

runPasskeyStoreConformance('memory', async () => ({ store: new MemoryPasskeyStore({ audit: new MemoryAuditLog() }) }));
runPasskeyStoreConformance('memory, no audit log', async () => ({ store: new MemoryPasskeyStore() }));
