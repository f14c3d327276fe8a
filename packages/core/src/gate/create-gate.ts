import type { GateConfig } from './config.ts';
import { Gate } from './gate.ts';
import type { CountersignStore } from './store.ts';

/** `GateConfig` with the store parts given as one `CountersignStore`. */
export type GateOptions = Omit<GateConfig, 'ledger' | 'audit' | 'definitions'> & { store: CountersignStore };

/** A gate on one store's ledger, audit log and definitions (`memoryStore()` for memory, asked for by name). */
export function createGate({ store, ...config }: GateOptions): Gate {
  return new Gate({ ...config, ledger: store.ledger, audit: store.audit, definitions: store.definitions });
}
