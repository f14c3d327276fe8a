import { AuditLogError } from './errors.ts';

export interface ReadRange {
  afterSeq: number;
  /** Infinity when no limit was given. */
  limit: number;
}

/** Validates `AuditLog.read` options once, for every log implementation. */
export function readRange(opts: { afterSeq?: number; limit?: number } | undefined): ReadRange {
  const afterSeq = opts?.afterSeq ?? 0;
  const limit = opts?.limit ?? Number.POSITIVE_INFINITY;
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) {
    throw new AuditLogError('invalid_argument', 'afterSeq must be a non-negative integer');
  }
  if (limit !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(limit) || limit < 0)) {
    throw new AuditLogError('invalid_argument', 'limit must be a non-negative integer');
  }
  return { afterSeq, limit };
}
