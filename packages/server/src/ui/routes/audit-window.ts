import { ApiError } from '../../errors/api-error.ts';

/** The stretch of the chain one audit page reads: the records after `afterSeq`, at most `limit` of them. */
export interface AuditWindow {
  afterSeq: number;
  limit: number;
}

/**
 * The window an audit page shows. `beforeSeq` (the "Older records" link) reads the `limit`
 * records just before it, and fewer when the chain starts sooner: the oldest page is short
 * rather than reaching into the newer page it came from, so paging never shows a row twice.
 * `afterSeq` reads the `limit` records after it; neither reads the newest `limit` records.
 */
export function auditWindow(query: { afterSeq: number | undefined; beforeSeq: string | undefined; limit: number; headSeq: number }): AuditWindow {
  const { afterSeq, beforeSeq, limit } = query;
  if (beforeSeq === undefined) return { afterSeq: afterSeq ?? Math.max(0, query.headSeq - limit), limit };
  if (afterSeq !== undefined) throw new ApiError('invalid_request', 'give afterSeq or beforeSeq, not both');
  if (!/^\d{1,15}$/.test(beforeSeq) || Number(beforeSeq) < 2) throw new ApiError('invalid_request', 'beforeSeq must be an integer of at least 2 (records are numbered from 1)');
  const before = Number(beforeSeq);
  const from = Math.max(0, before - 1 - limit);
  return { afterSeq: from, limit: before - 1 - from };
}
