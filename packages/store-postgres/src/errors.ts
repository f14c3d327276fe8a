import { LedgerError } from '@countersign/core/ledger';

// SQLSTATEs that mean "the database cannot serve this now", not "the request is wrong".
// 08 connection exception, 53 insufficient resources, 58 system error, 57P0x shutdown /
// cannot connect now, 57014 statement timeout, 25P03 idle-in-transaction timeout,
// 55P03 lock timeout, 40001/40P01 serialization failure / deadlock (retryable).
const UNAVAILABLE_SQLSTATE = /^(08|53|58|57P0|40001$|40P01$|57014$|25P03$|55P03$)/;

// Socket-level failures from node:net / node:dns.
const UNAVAILABLE_SYSCALL_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// node-postgres and pg-pool raise these without a code: connection lost, connect
// timeout, waiting too long for a pooled client, client-side query timeout, pool ended.
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout expired|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end)/;

/** Whether `error` (or anything in its `cause` chain) means the database is unreachable or unusable. */
export function isUnavailableError(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_SYSCALL_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_SQLSTATE.test(code);
  }
  if (UNAVAILABLE_MESSAGES.test(error.message)) return true;
  return isUnavailableError(error.cause, depth + 1);
}

/**
 * Outage errors become LedgerError('store_unavailable'), which the gate answers with
 * `not approved: store_unavailable`; the audit log throws the same so one signal
 * covers both. Everything else passes through unchanged.
 */
export function toStoreError(error: unknown): unknown {
  if (error instanceof LedgerError || !isUnavailableError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new LedgerError('store_unavailable', `postgres store unavailable: ${message}`, { cause: error });
}

/** The SQLSTATE of a database error, if it has one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
