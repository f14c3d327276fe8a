import type { AuditLog } from '../audit/types.ts';
import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import { MemoryDefinitionStore } from '../catalog/memory-definition-store.ts';
import type { DefinitionStore } from '../catalog/types.ts';
import { MemoryLedger } from '../ledger/memory-ledger.ts';
import type { LedgerStore } from '../ledger/types.ts';
import { MemoryPasskeyStore } from '../passkey/memory-passkey-store.ts';
import type { PasskeyStore } from '../passkey/types.ts';
import { MemorySessionRevocations } from '../session/memory-session-revocations.ts';
import type { SessionRevocationStore } from '../session/types.ts';

/**
 * The five parts one store provides, taken together so they are never wired one by one
 * (and none silently left in process memory while the others are shared). Returned by
 * `memoryStore()`, `@countersign/store-sqlite`'s `sqliteStore` and
 * `@countersign/store-postgres`'s `postgresStore`.
 */
export interface CountersignStore {
  /** Proposals, approval requests, decisions, consumption and results. */
  readonly ledger: LedgerStore;
  /** The hash-chained audit log. */
  readonly audit: AuditLog;
  /** Tool definitions by digest, pins and agent registrations. */
  readonly definitions: DefinitionStore;
  /** Approvers' registered passkeys. */
  readonly passkeys: PasskeyStore;
  /** Ended login sessions. */
  readonly sessions: SessionRevocationStore;
}

/**
 * Every part in this process's memory: for tests, examples and a single process that
 * may forget everything on exit. The ledger and passkey store append to the same audit
 * log in the same step, as the SQL stores do.
 */
export function memoryStore(): CountersignStore {
  const audit = new MemoryAuditLog();
  return {
    ledger: new MemoryLedger({ audit }),
    audit,
    definitions: new MemoryDefinitionStore(),
    passkeys: new MemoryPasskeyStore({ audit }),
    sessions: new MemorySessionRevocations(),
  };
}
