import { appendsToSameChain } from '../../audit/same-chain.ts';
import type { AuditEvent } from '../../audit/types.ts';
import type { AuditFor, AuditIfWritten } from '../../ledger/types.ts';
import type { GateDeps } from '../config.ts';

/**
 * Whether the ledger appends to the gate's own audit chain in its transactions: its
 * `auditLog` is the gate's audit log, or the log the gate's log wraps (a checkpointing
 * wrapper around the store's log).
 */
export function auditsAtomically(deps: Pick<GateDeps, 'ledger' | 'audit'>): boolean {
  return appendsToSameChain(deps.audit, deps.ledger.auditLog);
}

/**
 * One ledger write with its audit records. When the store holds both, one transaction
 * (`write(audit)`): the change and its records commit together or not at all. With an
 * unrelated audit log, two steps as before: the write, then the appends in order (the
 * first failing append throws; the ledger change stands).
 */
export function auditedWrite<R>(
  deps: Pick<GateDeps, 'ledger' | 'audit'>,
  write: (audit: AuditFor<R> | undefined) => Promise<R>,
  audit: AuditFor<R>,
): Promise<R> {
  // The store's own promise, not wrapped in another (this is on every dispatch, twice).
  if (auditsAtomically(deps)) return write(audit);
  return writeThenAppend(deps, write, audit);
}

/**
 * `auditedWrite` for a write whose records are known before it (consume, recordResult):
 * `events` are appended exactly when `written(outcome)`. In one transaction they go to
 * the store with the write (`AuditIfWritten`), which needs no outcome to send them: on
 * Postgres the write, the records and COMMIT share one round trip.
 */
export function auditedWriteIfWritten<R>(
  deps: Pick<GateDeps, 'ledger' | 'audit'>,
  write: (audit: AuditIfWritten | undefined) => Promise<R>,
  events: readonly AuditEvent[],
  written: (outcome: R) => boolean,
): Promise<R> {
  if (auditsAtomically(deps)) return write({ ifWritten: events });
  return writeThenAppend(deps, write, (outcome) => (written(outcome) ? events : []));
}

async function writeThenAppend<R>(
  deps: Pick<GateDeps, 'ledger' | 'audit'>,
  write: (audit: undefined) => Promise<R>,
  audit: AuditFor<R>,
): Promise<R> {
  const outcome = await write(undefined);
  for (const event of audit(outcome)) await deps.audit.append(event);
  return outcome;
}
