import type { AuditLog } from '@countersign/core/audit';
import type { LedgerStore } from '@countersign/core/ledger';
import type { SessionRevocationStore } from '@countersign/core/session';
import type { DefinitionStore } from '@countersign/core/catalog';
import type { StoreTarget } from './store-target.ts';

export interface OpenedStore {
  readonly ledger: LedgerStore;
  readonly audit: AuditLog;
  readonly sessions: SessionRevocationStore;
  /** Tool definitions, pins and agent registrations. */
  readonly definitions: DefinitionStore;
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
  const { openPostgresStore } = await import('@countersign/store-postgres');
  return openPostgresStore({
    connectionString: target.connectionString,
    ...(target.schema === undefined ? {} : { schema: target.schema }),
    readOnly,
  });
}
