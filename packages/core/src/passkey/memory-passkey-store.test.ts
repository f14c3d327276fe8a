import { runPasskeyStoreConformance } from '../testing/passkey-store-conformance.ts';
import { MemoryPasskeyStore } from './memory-passkey-store.ts';

runPasskeyStoreConformance('memory', async () => ({ store: new MemoryPasskeyStore() }));
