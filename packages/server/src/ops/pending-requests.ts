import type { Gate } from '@countersign/core/gate';

/**
 * The pending-request gauge reads at most this many requests per scrape: the scrape's cost
 * stays bounded however large the backlog, and a gauge at this value means "at least".
 */
export const PENDING_COUNT_LIMIT = 1000;

/**
 * How many approval requests wait for a decision now (pending and not expired), up to
 * `limit`; undefined when the store does not answer within `timeoutMs` (the scrape goes on
 * without a fresh value rather than hang). One bounded listing, no per-request reads.
 */
export async function countPendingRequests(gate: Gate, timeoutMs: number, limit = PENDING_COUNT_LIMIT): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  const count = gate.approvals.countPending(limit).catch(() => undefined);
  try {
    return await Promise.race([count, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
