import { LedgerError } from '@countersign/core/ledger';

// SQLite primary result codes (the low byte of an extended code) that mean the
// database cannot serve us right now, as opposed to a bug or bad input:
// BUSY/LOCKED after busy_timeout, IOERR, CORRUPT, FULL, CANTOPEN, READONLY, NOTADB.
const UNAVAILABLE_PRIMARY_CODES = new Set([5, 6, 8, 10, 11, 13, 14, 26]);

/** Whether `error` (thrown by node:sqlite) means the store is unreachable or unusable. */
export function isUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, errcode } = error as Error & { code?: unknown; errcode?: unknown };
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') {
    return UNAVAILABLE_PRIMARY_CODES.has(errcode & 0xff);
  }
  // node:sqlite throws ERR_INVALID_STATE for a database that is not open.
  return code === 'ERR_INVALID_STATE';
}

/**
 * Rewrites outage errors as LedgerError('store_unavailable') so the gate answers
 * `not approved: store_unavailable`; everything else passes through unchanged.
 * The audit log uses the same error, so callers recognise one outage signal.
 */
export function toStoreError(error: unknown): unknown {
  if (error instanceof LedgerError) return error;
  if (isUnavailableError(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return new LedgerError('store_unavailable', `sqlite store unavailable: ${message}`, { cause: error });
  }
  return error;
}
