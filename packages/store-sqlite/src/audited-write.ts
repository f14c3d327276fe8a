import type { AuditFor } from '@countersign/core/ledger';
import type { SqliteConnection } from './connection.ts';
import type { SqliteAuditLog } from './sqlite-audit-log.ts';

/**
 * `run` as one write transaction on `conn`, with the records `audit` builds from its
 * outcome appended to `log` in that same transaction: both land or neither. The ledger
 * and the passkey store write this way. Without `audit`, a plain write. A caller passing
 * events to a store that has no log is refused, never silently left unrecorded.
 */
export async function auditedWrite<R>(conn: SqliteConnection, log: SqliteAuditLog | undefined, owner: string, run: () => R, audit: AuditFor<R> | undefined): Promise<R> {
  if (audit === undefined) return conn.write(run);
  if (log === undefined) throw new TypeError(`this ${owner} has no audit log to append to`);
  const { outcome, records } = await conn.write(() => {
    const outcome = run();
    return { outcome, records: log.appendInTransaction(audit(outcome)) };
  });
  // Listeners hear of the records only once they are committed.
  log.notifyLedgerAppend(records);
  return outcome;
}
