import type { AuditLog } from '@countersign/core/audit';
import type { LedgerStore } from '@countersign/core/ledger';
import type { SessionRevocationStore } from '@countersign/core/session';
import type { DefinitionStore } from '@countersign/core/catalog';
import type { GateEvents } from '@countersign/core/events';
import type { PasskeyStore } from '@countersign/core/passkey';
import type { StoreTarget } from './store-target.ts';

export interface OpenedStore {
  readonly ledger: LedgerStore;
  readonly audit: AuditLog;
  readonly sessions: SessionRevocationStore;
  /** Tool definitions, pins and agent registrations. */
  readonly definitions: DefinitionStore;
  /** Approvers' registered passkeys (passkey-signed approvals). */
  readonly passkeys: PasskeyStore;
  /**
   * For stores several replicas share (Postgres): an event bus that reaches the other
   * replicas, so a waiter here wakes on a decision made there. Absent for SQLite.
   */
  openEvents?: (() => Promise<GateEvents & { close(): Promise<void> }>) | undefined;
  close(): Promise<void>;
}

/**
 * Opens the ledger and audit chain. `readOnly` (verify, export) never creates,
 * migrates or writes anything, and fails on a store that does not exist. Store packages are loaded on demand so a
 * SQLite user never loads the Postgres driver, and commands that need no store
 * (keygen, policy check) load neither.
 */
export async function openStore(target: StoreTarget, opts: { readOnly?: boolean } = {}): Promise<OpenedStore> {
  const readOnly = opts.readOnly === true;
  if (target.kind === 'sqlite') {
    const { openSqliteStore } = await import('@countersign/store-sqlite');
    return openSqliteStore({ path: target.path, readOnly });
  }
  const { openPostgresEvents, openPostgresStore } = await import('@countersign/store-postgres');
  const where = { connectionString: target.connectionString, ...(target.schema === undefined ? {} : { schema: target.schema }) };
  const store = await openPostgresStore({ ...where, readOnly });
  return {
    ledger: store.ledger,
    audit: store.audit,
    sessions: store.sessions,
    definitions: store.definitions,
    passkeys: store.passkeys,
    openEvents: () => openPostgresEvents(where),
    close: () => store.close(),
  };
}
