import type { AuditValue } from './types.ts';

/**
 * The audit record format this code writes, as `detail.format` of the records whose content
 * it changed. Format 1 (no marker) wrote a step as several records: `proposal`, `verdict`
 * and `approval_requested` for a new call; `decision` and `token_minted` for an approving
 * decision. Format 2 writes one record per step: the `proposal` record carries its verdict
 * and the approval request it opened, the `decision` record the token it minted (the field
 * mapping is in docs/invariants.md). Every other record type is written as in format 1 and
 * carries no marker. Readers accept both formats: a chain written before the change, and one
 * written while replicas of both versions share a store, still verify.
 */
export const AUDIT_RECORD_FORMAT = 2;

type Detail = { readonly [key: string]: AuditValue | undefined };

/** The fields of a record the format rules read (a record or an event, already type-checked field by field). */
interface FormatFields {
  readonly type: string;
  readonly requestId?: unknown;
  readonly reason?: unknown;
  readonly detail?: Detail | undefined;
}

const VERDICTS: ReadonlySet<unknown> = new Set(['allow', 'approve', 'deny']);
const DECISIONS: ReadonlySet<unknown> = new Set(['approve', 'deny']);

/** The approval request a format 2 proposal record opened (what format 1's `approval_requested` held). */
const REQUEST_FIELDS = ['expiresAt', 'requiredApprovals', 'requestRuleId', 'passkey'] as const;
/** Fields only format 2 writes: a format 1 `proposal` or `decision` carrying one had its marker stripped. */
const PROPOSAL_FIELDS = ['verdict', 'ruleId', 'tightenedBy', 'intent', ...REQUEST_FIELDS] as const;
const DECISION_FIELDS = ['tokenId', 'tokenExpiresAt'] as const;

/**
 * Why a record breaks its format's rules, or undefined. A format 2 record must hold every
 * fact the format 1 records of its step proved (a proposal its verdict, an approving decision
 * its token), so removing one is caught here, not only by the hash; a format 1 record must not
 * hold format 2 facts (a marker stripped to dodge these rules), and the records format 2 no
 * longer writes never carry a marker. The facts are flat members of `detail`: a nested object
 * would take every record off the chain's fast path for flat details (audit/chain.ts).
 */
export function formatProblem(record: FormatFields): string | undefined {
  const detail = record.detail;
  const format = detail?.format;
  switch (record.type) {
    case 'proposal':
      if (format === undefined) return hasAny(detail, PROPOSAL_FIELDS) ? 'a format 1 proposal record carries format 2 fields' : undefined;
      return format === AUDIT_RECORD_FORMAT ? proposalProblem(record, detail as Detail) : unknownFormat(format);
    case 'decision':
      if (format === undefined) return hasAny(detail, DECISION_FIELDS) ? 'a format 1 decision record carries format 2 fields' : undefined;
      return format === AUDIT_RECORD_FORMAT ? decisionProblem(record, detail as Detail) : unknownFormat(format);
    default:
      return format === undefined ? undefined : `a ${record.type} record carries no format marker`;
  }
}

function hasAny(detail: Detail | undefined, keys: readonly string[]): boolean {
  return detail !== undefined && keys.some((key) => detail[key] !== undefined);
}

function unknownFormat(format: AuditValue | undefined): string {
  return `unknown audit record format ${JSON.stringify(format)?.slice(0, 32)}`;
}

/** A format 2 proposal: the verdict it was recorded under and, when one opened with it, the approval request. */
function proposalProblem(record: FormatFields, detail: Detail): string | undefined {
  const verdict = detail.verdict;
  if (!VERDICTS.has(verdict)) return 'a format 2 proposal record must carry its verdict (allow, approve or deny)';
  if (!isRuleId(detail.ruleId)) return 'a format 2 proposal record must carry the ruleId of its verdict (a string or null)';
  // A denial's reason code is what the format 1 verdict record carried as its reason.
  if ((verdict === 'deny') !== (record.reason !== undefined)) return 'a format 2 proposal record carries a reason exactly when its verdict is deny';
  if (detail.tightenedBy !== undefined && (verdict !== 'approve' || typeof detail.tightenedBy !== 'string')) {
    return 'only an approve verdict can be tightened (tightenedBy)';
  }
  if (detail.intent !== undefined && !isObject(detail.intent)) return 'field "intent" must be an object';
  if (record.requestId === undefined) return hasAny(detail, REQUEST_FIELDS) ? 'a proposal record carries a request it did not open (no requestId)' : undefined;
  if (verdict === 'deny') return 'a denied proposal opens no approval request';
  return requestProblem(detail);
}

/** What a format 1 `approval_requested` record's detail held, and what `audit verify` holds decisions to. */
function requestProblem(detail: Detail): string | undefined {
  if (!Number.isSafeInteger(detail.expiresAt)) return 'the approval request must carry its deadline (expiresAt)';
  const required = detail.requiredApprovals;
  if (!(typeof required === 'number' && Number.isSafeInteger(required) && required >= 1)) return 'the approval request must carry requiredApprovals';
  if (!isRuleId(detail.requestRuleId)) return 'the approval request must carry its rule (requestRuleId, a string or null)';
  if (detail.passkey !== undefined && detail.passkey !== 'required') return 'the approval request\'s passkey must be "required" or absent';
  return undefined;
}

/** A format 2 decision: the approver's decision with its signed record and, when it approved the request, the token it minted. */
function decisionProblem(record: FormatFields, detail: Detail): string | undefined {
  if (typeof record.requestId !== 'string') return 'a decision record must name its request';
  if (!DECISIONS.has(detail.decision)) return 'a format 2 decision record must carry its decision (approve or deny)';
  if (typeof detail.status !== 'string') return 'a format 2 decision record must carry the request status it left';
  if (typeof detail.record !== 'string') return 'a format 2 decision record must carry its signed decision record';
  // Approved is the one status that mints a token, and it always does (format 1 wrote token_minted then).
  if ((detail.status === 'approved') !== hasAny(detail, DECISION_FIELDS)) return 'a format 2 decision record carries a token exactly when it approved the request';
  if (detail.status !== 'approved') return undefined;
  if (!(typeof detail.tokenId === 'string' && Number.isSafeInteger(detail.tokenExpiresAt))) return 'the minted token must carry its tokenId and tokenExpiresAt';
  return undefined;
}

function isRuleId(value: AuditValue | undefined): boolean {
  return value === null || typeof value === 'string';
}

function isObject(value: AuditValue | undefined): value is { [key: string]: AuditValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
