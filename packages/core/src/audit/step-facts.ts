import { AUDIT_RECORD_FORMAT } from './record-format.ts';
import type { AuditRecord, AuditValue } from './types.ts';

// Readers of the facts that moved between records in format 2 (see record-format.ts): each
// reads a format 1 record and its format 2 counterpart alike, so a reader never has to
// know which format a chain, or a record of it, was written in.

/** An approval request as the chain opened it: what its decisions are held to. */
export interface OpenedRequest {
  requestId: string;
  proposalId: string | undefined;
  /** The request's fields as format 1's `approval_requested` named them: `expiresAt`, `requiredApprovals`, `ruleId`, `passkey` when required (unchecked values). */
  detail: { readonly [key: string]: AuditValue };
  seq: number;
}

/**
 * The approval request `record` opened: a format 1 `approval_requested` record, or a
 * format 2 `proposal` record that opened its request with it. Undefined for any other record.
 */
export function openedRequestOf(record: AuditRecord): OpenedRequest | undefined {
  if (record.requestId === undefined) return undefined;
  if (record.type === 'approval_requested') return { requestId: record.requestId, proposalId: record.proposalId, detail: record.detail ?? {}, seq: record.seq };
  const d = record.type === 'proposal' ? record.detail : undefined;
  if (d?.format !== AUDIT_RECORD_FORMAT) return undefined;
  // In the format 1 record's shape: the request's rule was its `ruleId` there.
  const detail: { [key: string]: AuditValue } = {};
  if (d.expiresAt !== undefined) detail.expiresAt = d.expiresAt;
  if (d.requiredApprovals !== undefined) detail.requiredApprovals = d.requiredApprovals;
  if (d.requestRuleId !== undefined) detail.ruleId = d.requestRuleId;
  if (d.passkey !== undefined) detail.passkey = d.passkey;
  return { requestId: record.requestId, proposalId: record.proposalId, detail, seq: record.seq };
}

/** The policy verdict a call was recorded under. */
export interface RecordedVerdict {
  proposalId: string | undefined;
  verdict: AuditValue | undefined;
  ruleId: AuditValue | undefined;
  /** The deny verdict's reason code. */
  reason: string | undefined;
  tightenedBy: AuditValue | undefined;
  intent: AuditValue | undefined;
}

/** The verdict `record` carries: a format 1 `verdict` record, or a format 2 `proposal` record. */
export function verdictOf(record: AuditRecord): RecordedVerdict | undefined {
  const detail = record.detail;
  if (!(record.type === 'verdict' || (record.type === 'proposal' && detail?.format === AUDIT_RECORD_FORMAT))) return undefined;
  return {
    proposalId: record.proposalId,
    verdict: detail?.verdict,
    ruleId: detail?.ruleId,
    reason: record.reason,
    tightenedBy: detail?.tightenedBy,
    intent: detail?.intent,
  };
}

/** A token minted when a decision approved its request. */
export interface MintedToken {
  requestId: string | undefined;
  tokenId: AuditValue | undefined;
  expiresAt: AuditValue | undefined;
}

/** The token `record` says was minted: a format 1 `token_minted` record, or a format 2 approving `decision` record. */
export function mintedTokenOf(record: AuditRecord): MintedToken | undefined {
  const detail = record.detail;
  if (record.type === 'token_minted') return { requestId: record.requestId, tokenId: detail?.tokenId, expiresAt: detail?.expiresAt };
  if (record.type !== 'decision' || detail?.format !== AUDIT_RECORD_FORMAT || detail.tokenId === undefined) return undefined;
  return { requestId: record.requestId, tokenId: detail.tokenId, expiresAt: detail.tokenExpiresAt };
}
