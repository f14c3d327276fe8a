import type { AuditRecord } from '../audit/types.ts';
import { readPasskeyEvidence } from './assertion-shape.ts';
import { passkeyChallenge, passkeyDecisionClaims } from './decision-claims.ts';
import type { PasskeyCredential, PasskeyEvidence } from './types.ts';

/** Verifies one stored assertion against a registered public key, offline (no counter, no clock). */
export type OfflineAssertionCheck = (input: {
  evidence: PasskeyEvidence;
  challenge: Uint8Array;
  credential: PasskeyCredential;
}) => Promise<{ ok: true } | { ok: false; message: string }>;

const MISSING = 'passkey_missing: a decision under a passkey rule without a passkey assertion';

export interface PasskeyEvidenceProblem {
  seq: number;
  reason: string;
}

export interface PasskeyEvidenceReport {
  /** Decisions whose assertion verified (0 when no credentials were given). */
  verified: number;
  /** Decisions carrying an assertion that was not checked, for want of the registered public keys. */
  unchecked: number;
  problems: PasskeyEvidenceProblem[];
}

/**
 * Re-verifies every passkey assertion in an audit trail against the registered public
 * keys, with the challenge rebuilt from the audit records themselves (never from the
 * stored assertion), and reports every decision on a request opened under a passkey
 * rule (`approval_requested` with `passkey: "required"`) that has no valid assertion.
 * Without `credentials` (an export read without its store) only the presence of an
 * assertion is checked; those decisions are counted as `unchecked`.
 * A decision written by someone holding the server's keys but not the approver's
 * device has no assertion that verifies, so it is reported here even when its signed
 * decision record and the hash chain are perfect.
 */
export async function checkPasskeyEvidence(
  records: Iterable<AuditRecord> | AsyncIterable<AuditRecord>,
  credentials: ReadonlyMap<string, PasskeyCredential> | undefined,
  verify: OfflineAssertionCheck,
): Promise<PasskeyEvidenceReport> {
  const requests = new Map<string, { expiresAt: number; passkey: boolean }>();
  const problems: PasskeyEvidenceProblem[] = [];
  let verified = 0;
  let unchecked = 0;
  for await (const record of records) {
    if (record.type === 'approval_requested' && record.requestId !== undefined) {
      const detail = record.detail ?? {};
      requests.set(record.requestId, { expiresAt: typeof detail.expiresAt === 'number' ? detail.expiresAt : Number.NaN, passkey: detail.passkey === 'required' });
      continue;
    }
    if (record.type !== 'decision' || record.requestId === undefined) continue;
    const request = requests.get(record.requestId);
    const detail = record.detail ?? {};
    if (credentials === undefined) {
      if (detail.passkey !== undefined) unchecked += 1;
      else if (request?.passkey === true) problems.push({ seq: record.seq, reason: MISSING });
      continue;
    }
    const problem = await checkOne(record, request, credentials, verify);
    if (problem === undefined) {
      if (detail.passkey !== undefined) verified += 1;
    } else {
      problems.push({ seq: record.seq, reason: problem });
    }
  }
  return { verified, unchecked, problems };
}

async function checkOne(
  record: AuditRecord,
  request: { expiresAt: number; passkey: boolean } | undefined,
  credentials: ReadonlyMap<string, PasskeyCredential>,
  verify: OfflineAssertionCheck,
): Promise<string | undefined> {
  const detail = record.detail ?? {};
  if (detail.passkey === undefined) {
    return request?.passkey === true ? MISSING : undefined;
  }
  const evidence = readPasskeyEvidence(detail.passkey);
  if (evidence === undefined) return 'passkey_malformed: the stored assertion is not one';
  if (request === undefined) return 'passkey_unbound: no approval_requested record precedes this decision';
  if (!Number.isSafeInteger(request.expiresAt)) return 'passkey_unbound: the approval_requested record has no deadline';
  if (detail.decision !== 'approve' && detail.decision !== 'deny') return 'passkey_unbound: the decision is neither approve nor deny';
  const credential = credentials.get(evidence.credentialId);
  if (credential === undefined) return 'passkey_unknown_credential: no registered passkey has this credential id';
  if (credential.approver !== record.actor) return `passkey_wrong_approver: the passkey belongs to ${credential.approver}, the decision to ${record.actor}`;
  const call = signedCall(detail.record);
  if (call === undefined) return 'passkey_unbound: the decision record does not name the call';
  const edit = typeof detail.editedArgsDigest === 'string' ? detail.editedArgsDigest : undefined;
  if (detail.editedProposalId !== undefined && edit === undefined) return 'passkey_unbound: an edit without its edited-argument digest';
  // Rebuilt from the chained records: the assertion counts only if it signed exactly this call and decision.
  const claims = passkeyDecisionClaims(
    {
      runId: String(record.runId),
      sessionId: String(record.sessionId),
      callId: String(record.callId),
      toolName: String(record.toolName),
      argsDigest: String(record.argsDigest),
      principal: call.sub,
      ...(call.def === null ? {} : { definitionDigest: call.def }),
    },
    { requestId: record.requestId as string, expiresAt: request.expiresAt },
    { decision: edit === undefined ? detail.decision : 'approve', editedArgsDigest: edit },
  );
  const checked = await verify({ evidence, challenge: passkeyChallenge(claims), credential });
  return checked.ok ? undefined : `passkey_invalid: ${checked.message}`;
}

/** The principal and definition digest from the signed decision record's payload (its signature is checked elsewhere). */
function signedCall(record: unknown): { sub: string; def: string | null } | undefined {
  if (typeof record !== 'string') return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(record.split('.')[1] ?? '', 'base64url').toString('utf8'));
    if (typeof payload !== 'object' || payload === null) return undefined;
    const { sub, def } = payload as Record<string, unknown>;
    if (typeof sub !== 'string' || (def !== null && typeof def !== 'string')) return undefined;
    return { sub, def };
  } catch {
    return undefined;
  }
}
