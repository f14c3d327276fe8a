import type { AuditRecord } from '@countersign/core/audit';
import type { Approver } from '@countersign/core/gate';
import type { Services } from '../app/services.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ChainStatus } from './chain-status.ts';
import { visibleRecords } from './visible-records.ts';

export interface AuditPage {
  records: AuditRecord[];
  chain: ChainStatus;
  /** When `chain` was verified (the status is shared and refreshed at most every few seconds). */
  chainCheckedAt: number;
  /** Pass as `afterSeq` for the next page; null when this page is the end. */
  nextAfterSeq: number | null;
  /**
   * How many records of this page's stretch of the chain the viewer may not read (left out
   * of `records`): the seqs of `records` already show the gaps, so the count tells nothing more.
   */
  hidden: number;
}

export const MAX_AUDIT_PAGE = 500;

export function parseAuditQuery(afterSeqRaw: string | undefined, limitRaw: string | undefined): { afterSeq: number; limit: number } {
  const afterSeq = parseCount(afterSeqRaw, 'afterSeq', 0);
  const limit = Math.min(parseCount(limitRaw, 'limit', 100), MAX_AUDIT_PAGE);
  return { afterSeq, limit: Math.max(limit, 1) };
}

/**
 * One page of the chain as `viewer` may read it (see `visibleRecords`): a page may hold
 * fewer than `limit` records, and `nextAfterSeq` still walks the whole chain.
 */
export async function readAuditPage(services: Services, viewer: Approver, afterSeq: number, limit: number): Promise<AuditPage> {
  try {
    const audit = services.gate.auditLog;
    const [records, chain] = await Promise.all([audit.read({ afterSeq, limit: limit + 1 }), services.chainStatus.get()]);
    const page = records.slice(0, limit);
    const visible = await visibleRecords(services, viewer, page);
    return {
      records: visible,
      chain: chain.status,
      chainCheckedAt: chain.checkedAt,
      nextAfterSeq: records.length > limit ? (page.at(-1)?.seq ?? null) : null,
      hidden: page.length - visible.length,
    };
  } catch {
    throw new ApiError('store_unavailable', 'the audit store is unavailable');
  }
}

function parseCount(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,15}$/.test(raw)) throw new ApiError('invalid_request', `${name} must be a non-negative integer`);
  return Number(raw);
}
