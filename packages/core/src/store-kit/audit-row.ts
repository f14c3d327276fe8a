import type { AuditEvent, AuditRecord } from '../audit/types.ts';
import { LedgerError } from '../ledger/errors.ts';
import { integer, json, type Row, text } from './row-fields.ts';

/**
 * A stored record: seq, prev_hash, hash and the JSON text of the hashed event.
 * Shape and hashes are not re-checked here; `verifyChain` over `read()` does that.
 */
export function auditRecordFromRow(row: Row): AuditRecord {
  const event = json(row, 'event');
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new LedgerError('corrupt_record', 'column event: expected a JSON object');
  }
  return {
    ...(event as AuditEvent),
    seq: integer(row, 'seq'),
    prevHash: text(row, 'prev_hash'),
    hash: text(row, 'hash'),
  };
}

/** The event part of a record as JSON text (for a json column): every field but seq, prevHash and hash. */
export function auditEventJson(record: AuditRecord): string {
  const { seq: _seq, prevHash: _prevHash, hash: _hash, ...event } = record;
  return JSON.stringify(event);
}
